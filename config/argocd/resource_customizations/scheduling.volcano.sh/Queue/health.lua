-- Health of a Volcano Queue (scheduling.volcano.sh/v1beta1).
--
-- Open is Healthy. Closed (closed by a CloseQueue Command: it admits nothing new) is Suspended,
-- and Closing (closed, still holding PodGroups) is Progressing. Unknown is Degraded. A queue with
-- no state yet is Progressing.
local hs = { status = "Progressing", message = "Waiting for the queue controller" }
if obj.status == nil or obj.status.state == nil or obj.status.state == "" then
  return hs
end

local state = obj.status.state
if state == "Open" then
  hs.status = "Healthy"
elseif state == "Closed" then
  hs.status = "Suspended"
elseif state == "Unknown" then
  hs.status = "Degraded"
end
hs.message = state
return hs
