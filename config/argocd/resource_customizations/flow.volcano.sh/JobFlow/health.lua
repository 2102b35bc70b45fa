-- Health of a Volcano JobFlow (flow.volcano.sh/v1alpha1), served by Volcano or Caldera: the jobs
-- made from JobTemplates in the order of a DAG.
--
-- The phase is status.state.phase. A flow the controller has not yet reconciled (no phase and
-- no conditions), or whose latest spec it has not yet taken up (status.observedGeneration behind
-- metadata.generation), is Progressing. Succeed is Healthy. A flow stopped by a job that failed,
-- was terminated or aborted (phase Failed), or by bad input (condition Stalled=True: a missing
-- JobTemplate, a dependency cycle, a bad when, a refused job) is Degraded with the condition's
-- message. Everything else (Pending, Running, Terminating) is Progressing, with the Ready
-- condition's message when there is one.
local hs = { status = "Progressing", message = "Waiting for the JobFlow controller" }
if obj.status == nil then
  return hs
end

local function condition(type)
  if obj.status.conditions == nil then
    return nil
  end
  for _, c in ipairs(obj.status.conditions) do
    if c.type == type then
      return c
    end
  end
  return nil
end

local phase = ""
if obj.status.state ~= nil and obj.status.state.phase ~= nil then
  phase = obj.status.state.phase
end
if phase == "" and obj.status.conditions == nil then
  return hs
end

local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and observed ~= nil and observed < generation then
  hs.message = "Waiting for the JobFlow controller to take up generation " .. generation
  return hs
end

local function describe(c, default)
  if c ~= nil and c.message ~= nil and c.message ~= "" then
    return default .. ": " .. c.message
  end
  return default
end

if phase == "Succeed" then
  hs.status = "Healthy"
  hs.message = describe(condition("Ready"), "Succeed")
  return hs
end

local stalled = condition("Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = describe(stalled, stalled.reason or "Stalled")
  return hs
end
if phase == "Failed" then
  hs.status = "Degraded"
  hs.message = "Failed: a job of the flow failed, was terminated or aborted"
  return hs
end

if phase == "" then
  phase = "Pending"
end
hs.message = describe(condition("Ready"), phase)
return hs
