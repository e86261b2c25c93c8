-- Moves a consumer's cursor from the position it read at to the last entry it handled, unless another consumer
-- moved it first (src/events/sink.ts). KEYS: 1 cursor. ARGV: 1 from ('0-0' = none yet), 2 to. Returns 1 when moved.
if (redis.call('GET', KEYS[1]) or '0-0') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
