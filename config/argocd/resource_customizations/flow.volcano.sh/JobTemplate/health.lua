-- Health of a Volcano JobTemplate (flow.volcano.sh/v1alpha1), the spec of the jobs JobFlows make.
--
-- A template has nothing to run: once the controller has taken up its latest spec (condition
-- Ready=True, status.observedGeneration equal to metadata.generation) it is Healthy, with the
-- Ready condition's message (how many jobs were made from it). Before that it is Progressing.
local hs = { status = "Progressing", message = "Waiting for the JobTemplate controller" }
if obj.status == nil or obj.status.conditions == nil then
  return hs
end

local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and observed ~= nil and observed < generation then
  hs.message = "Waiting for the JobTemplate controller to take up generation " .. generation
  return hs
end

for _, c in ipairs(obj.status.conditions) do
  if c.type == "Ready" then
    if c.status == "True" then
      hs.status = "Healthy"
    end
    hs.message = (c.reason or "Ready") .. ": " .. (c.message or "")
    return hs
  end
end
return hs
