-- Health of a Volcano CronJob (batch.volcano.sh/v1alpha1) served by Caldera, which writes the
-- kstatus conditions Ready, Reconciling and Stalled.
--
-- A CronJob the controller has not yet reconciled (no Ready or Stalled condition), or whose latest
-- spec it has not yet taken up (status.observedGeneration behind metadata.generation), is
-- Progressing. A schedule, time zone or job template that cannot run (condition Stalled=True,
-- reason InvalidSchedule, InvalidTimeZone or InvalidJobTemplate) is Degraded with the
-- condition's message. Ready=True with reason Suspended (spec.suspend: no run is started) is
-- Suspended; Ready=True otherwise (reason Scheduled: the message names the next run) is Healthy.
-- Ready=False without Stalled (an API error the controller retries) is Progressing. The health
-- of the runs themselves is that of their Jobs.
local hs = { status = "Progressing", message = "Waiting for the CronJob controller" }
if obj.status == nil or obj.status.conditions == nil then
  return hs
end

local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and observed ~= nil and observed < generation then
  hs.message = "Waiting for the CronJob controller to take up generation " .. generation
  return hs
end

local ready = nil
for _, c in ipairs(obj.status.conditions) do
  if c.type == "Stalled" and c.status == "True" then
    hs.status = "Degraded"
    hs.message = (c.reason or "Stalled") .. ": " .. (c.message or "")
    return hs
  end
  if c.type == "Ready" then
    ready = c
  end
end
if ready == nil then
  return hs
end

local reason = ready.reason or "Ready"
hs.message = reason .. ": " .. (ready.message or "")
if ready.status == "True" then
  if reason == "Suspended" then
    hs.status = "Suspended"
  else
    hs.status = "Healthy"
  end
end
return hs
