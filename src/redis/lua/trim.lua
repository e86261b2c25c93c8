-- Event retention (src/events/log.ts trim): drops events older than a minimum id and beyond a count, and notes the
-- newest id it removed (Redis' own max-deleted-entry-id does not count trimming), so a reader knows what it missed.
-- KEYS: 1 event stream, 2 the mark (newest removed id)
-- ARGV: 1 minimum id to keep ('' = no age limit), 2 max count (0 = none). Returns how many went.
local function before(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am < bm or (am == bm and as < bs)
end
local removed = nil
local n = 0
-- Only when the oldest event is older than the minimum: otherwise XREVRANGE finds no node at or before it and walks
-- the whole stream backwards (all of it, for the days of a default window; 20 ms at 24,000 events).
local first = ARGV[1] ~= '' and redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
if first and before(first[1], ARGV[1]) then
  local r = redis.call('XREVRANGE', KEYS[1], '(' .. ARGV[1], '-', 'COUNT', 1)
  if #r > 0 then removed = r[1][1] end
  n = n + redis.call('XTRIM', KEYS[1], 'MINID', ARGV[1])
end
local max = tonumber(ARGV[2])
if max > 0 then
  local len = redis.call('XLEN', KEYS[1])
  if len > max then
    local r = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', len - max)
    removed = r[#r][1]
    n = n + redis.call('XTRIM', KEYS[1], 'MAXLEN', max)
  end
end
if removed then redis.call('SET', KEYS[2], removed) end
return n
