-- Ends one delivery step of a webhook chain's head in one write: its state, its attempt in the attempts log (the
-- newest ARGV[4] kept), a dead letter, and the head removed if it is still this event (a repeated job never removes
-- the next one). Returns the chain's head afterwards with what its delivery step reads (the "chain-head" include),
-- so the drain loop needs no round trip of its own between two events.
-- KEYS: 1 chain, 2 delivery states, 3 attempts log, 4 dead letters, 5 webhooks, 6 event log.
-- ARGV: 1 event id, 2 state JSON, 3 attempt JSON ('' for none), 4 attempts kept, 5 '1' to remove the head,
--       6 '1' to dead-letter it, 7 the webhook's id.
--- @include "chain-head"
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ARGV[3] ~= '' then
  redis.call('LPUSH', KEYS[3], ARGV[3])
  redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[4]) - 1)
end
if ARGV[6] == '1' then redis.call('RPUSH', KEYS[4], ARGV[1]) end
if ARGV[5] == '1' and redis.call('LINDEX', KEYS[1], 0) == ARGV[1] then redis.call('LPOP', KEYS[1]) end
return chainHead({chain = KEYS[1], states = KEYS[2], webhooks = KEYS[5], events = KEYS[6]}, ARGV[7])
