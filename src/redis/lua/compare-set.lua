-- Hands a key from one holder to another only if the first still has it, with a new time to live
-- (src/intents/reserve.ts: a holding reserved while a transfer is prepared, then held by its stored record).
-- KEYS: 1 the key. ARGV: 1 the holder's token, 2 the new holder's, 3 the new time to live in ms.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return false
