-- One webhook dispatcher step (src/events/webhooks/dispatch.ts): appends each event id to the chain of every
-- matching webhook and party, notes the chain and the delivery as pending, and moves the dispatcher's cursor, in
-- one step. A dispatcher that read a cursor that moved meanwhile (another one did the batch) changes nothing.
-- KEYS: 1 dispatcher cursor, 2 set of chains, 3.. per delivery: its chain, its webhook's delivery states
-- ARGV: 1 the cursor the caller read from, 2 the new cursor, 3 now (ISO), 4.. per delivery: webhook, party, event id
-- Returns 0 when the cursor had moved, else {1, per delivery the length of its chain after it was appended} (1:
-- the event is its chain's head).
if (redis.call('GET', KEYS[1]) or '0-0') ~= ARGV[1] then return 0 end
local lengths = {1}
for i = 3, #KEYS, 2 do
  local a = 4 + (i - 3) / 2 * 3
  local w, party, ev = ARGV[a], ARGV[a + 1], ARGV[a + 2]
  lengths[#lengths + 1] = redis.call('RPUSH', KEYS[i], ev)
  redis.call('SADD', KEYS[2], w .. '|' .. party)
  redis.call('HSET', KEYS[i + 1], ev, cjson.encode({ eventId = ev, party = party, state = 'pending',
    attempts = 0, queuedAt = ARGV[3] }))
end
redis.call('SET', KEYS[1], ARGV[2])
return lengths
