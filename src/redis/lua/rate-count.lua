-- Counts n against a window that opens at the first count in it (src/api/rate-limit.ts): one command per accept
-- where MULTI, INCRBY, PEXPIRE, PTTL and EXEC were five. KEYS: 1 counter. ARGV: 1 n, 2 window ms.
-- Returns {count, ms left in the window}.
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
-- NX: only the first count of a window sets its end; the count then lives exactly one window.
redis.call('PEXPIRE', KEYS[1], ARGV[2], 'NX')
return {count, redis.call('PTTL', KEYS[1])}
