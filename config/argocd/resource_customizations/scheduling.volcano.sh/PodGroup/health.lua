-- Health of a Volcano PodGroup (scheduling.volcano.sh/v1beta1), the gang of pods a scheduler
-- places all together or not at all.
--
-- Running and Completed are Healthy. Pending and Inqueue are Progressing, with the message of
-- the Unschedulable condition when the scheduler could not place the gang, or Degraded when that
-- condition's reason is Unsatisfiable (minResources exceed what the queue or the cluster can ever
-- hold: waiting will not help). Unknown (some of a placed gang's pods failed or vanished) is
-- Degraded. A PodGroup with no phase yet is Progressing.
local hs = { status = "Progressing", message = "Waiting for the scheduler" }
if obj.status == nil or obj.status.phase == nil or obj.status.phase == "" then
  return hs
end

local phase = obj.status.phase
if phase == "Running" or phase == "Completed" then
  hs.status = "Healthy"
  hs.message = phase
  return hs
end
if phase == "Unknown" then
  hs.status = "Degraded"
  hs.message = "Unknown: some of the gang's pods failed or are missing"
  return hs
end

hs.message = phase
if obj.status.conditions ~= nil then
  for _, condition in ipairs(obj.status.conditions) do
    if condition.type == "Unschedulable" and condition.status == "True" then
      if condition.reason == "Unsatisfiable" then
        hs.status = "Degraded"
        hs.message = "Unsatisfiable: " .. (condition.message or "")
        return hs
      end
      if condition.message ~= nil and condition.message ~= "" then
        hs.message = phase .. ": " .. condition.message
      end
    end
  end
end
return hs
