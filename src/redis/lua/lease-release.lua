-- Gives a lease up (src/redis/lease.ts) only if this holder still has it. KEYS: 1 lease. ARGV: 1 token.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end
