-- Removes the head of a webhook chain if it is still the given event (a repeated job never removes the next one).
-- KEYS: 1 chain. ARGV: 1 event id. Returns 1 when removed.
if redis.call('LINDEX', KEYS[1], 0) == ARGV[1] then redis.call('LPOP', KEYS[1]) return 1 end
return 0
