-- A webhook chain's head with what its delivery step reads (src/events/webhooks/deliveries.ts ChainHead).
-- `k`: {chain, states, webhooks, events}; `webhook`: its id. Returns false when the chain is empty, else
-- {head, webhook JSON or false, the head's state JSON or false, its event {id, fields} or false}.
local function chainHead(k, webhook)
  local head = redis.call('LINDEX', k.chain, 0)
  if not head then return false end
  -- An id that is not a stream id reads as no event (as EventLog.get answers), not as an error after the writes.
  local entry = redis.pcall('XRANGE', k.events, head, head)
  if type(entry) ~= 'table' or entry.err or not entry[1] then entry = false else entry = entry[1] end
  return {head, redis.call('HGET', k.webhooks, webhook), redis.call('HGET', k.states, head), entry}
end
