-- Gives a lease (src/redis/lease.ts), a mutex (src/redis/mutex.ts) or an intent's holding reservation
-- (src/intents/reserve.ts) up only if this holder still has it. KEYS: 1 the key. ARGV: 1 the holder's token.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end
