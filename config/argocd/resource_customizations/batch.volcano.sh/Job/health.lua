-- Health of a Volcano batch Job (batch.volcano.sh/v1alpha1), served by Volcano or Caldera.
--
-- The phase is status.state.phase. A job the controller has not yet reconciled (no phase), or
-- whose latest spec it has not yet taken up (status.observedGeneration behind
-- metadata.generation), is Progressing. Completed is Healthy; Failed and Terminated are
-- Degraded. Aborted is Suspended when spec.suspend holds the job (reason JobSuspended) or a
-- Command (vcctl job suspend) aborted it (reason CommandIssued): a user asked for it and can
-- resume it. Aborted for any other reason (a lifecycle policy) is Degraded. A job stopped by bad
-- input (condition Stalled=True, for example an unknown queue) is Degraded with the condition's
-- message. Everything else (Pending, Running, Restarting, Completing, Aborting, Terminating) is
-- Progressing.
local hs = { status = "Progressing", message = "Waiting for the job controller" }
if obj.status == nil or obj.status.state == nil or obj.status.state.phase == nil or obj.status.state.phase == "" then
  return hs
end

local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and observed ~= nil and observed < generation then
  hs.message = "Waiting for the job controller to take up generation " .. generation
  return hs
end

local state = obj.status.state
local phase = state.phase
local reason = state.reason or ""
local function describe(default)
  if state.message ~= nil and state.message ~= "" then
    return phase .. ": " .. state.message
  end
  return default
end

if phase == "Completed" then
  hs.status = "Healthy"
  hs.message = describe("Completed")
  return hs
end
if phase == "Failed" or phase == "Terminated" then
  hs.status = "Degraded"
  hs.message = describe(phase)
  return hs
end
if phase == "Aborted" then
  if reason == "JobSuspended" or reason == "CommandIssued" then
    hs.status = "Suspended"
  else
    hs.status = "Degraded"
  end
  hs.message = describe("Aborted")
  return hs
end

if obj.status.conditions ~= nil then
  for _, condition in ipairs(obj.status.conditions) do
    if condition.type == "Stalled" and condition.status == "True" then
      hs.status = "Degraded"
      hs.message = (condition.reason or "Stalled") .. ": " .. (condition.message or "")
      return hs
    end
  end
end

hs.message = describe(phase)
return hs
