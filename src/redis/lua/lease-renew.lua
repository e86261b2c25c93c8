-- Extends a lease (src/redis/lease.ts) only while this holder still has it. KEYS: 1 lease. ARGV: 1 token, 2 ttl ms.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end
