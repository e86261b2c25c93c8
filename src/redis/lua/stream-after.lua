-- A consumer's cursor and the entries after it, in one round trip (src/redis/consumer.ts). A cursor never set starts
-- at the stream's first entry ('first') or at its end ('end': it is set there, so the consumer hands on what is
-- written from now on).
-- KEYS: 1 cursor, 2 stream. ARGV: 1 'first' | 'end', 2 how many entries at most, 3 the last id to read ('+': all).
-- Returns {cursor, entries}, the entries as XRANGE gives them.
local at = redis.call('GET', KEYS[1])
if not at then
  at = '0-0'
  if ARGV[1] == 'end' then
    local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
    if last then at = last[1] end
    redis.call('SET', KEYS[1], at)
  end
end
return {at, redis.call('XRANGE', KEYS[2], '(' .. at, ARGV[3], 'COUNT', ARGV[2])}
