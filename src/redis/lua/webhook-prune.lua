-- Webhook delivery retention (src/events/webhooks/deliveries.ts prune): removes the delivery states of one webhook
-- that ended (delivered or dead) before a cutoff, their dead letters and their attempts, in one step. A state
-- still pending, or one that changed since the caller read it (a redelivery made it pending), stays; a prune that
-- runs twice removes nothing twice.
-- KEYS: 1 delivery states (hash), 2 attempts log (list), 3 dead letters (list)
-- ARGV: 1 cutoff (ISO time), 2 '1' to sweep the attempts log too, 3.. the event ids the caller found past it
-- Returns how many states went.
local cutoff = ARGV[1]
local n = 0
for i = 3, #ARGV do
  local raw = redis.call('HGET', KEYS[1], ARGV[i])
  if raw then
    local ok, s = pcall(cjson.decode, raw)
    if ok and type(s) == 'table' and (s.state == 'delivered' or s.state == 'dead') then
      local at = s.lastAttemptAt
      if type(at) ~= 'string' then at = s.queuedAt end
      if type(at) == 'string' and at < cutoff then
        redis.call('HDEL', KEYS[1], ARGV[i])
        redis.call('LREM', KEYS[3], 0, ARGV[i])
        n = n + 1
      end
    end
  end
end
if ARGV[2] ~= '1' then return n end
-- The attempts older than the cutoff of events no state names any more: those of the states removed above (an
-- attempt is never later than its state's last attempt) and of those an earlier call removed. It reads the whole log
-- (up to 1000 entries, about 2 ms): once a pass.
local log = redis.call('LRANGE', KEYS[2], 0, -1)
local keep, drop = {}, false
for _, raw in ipairs(log) do
  local ok, a = pcall(cjson.decode, raw)
  local old = ok and type(a) == 'table' and type(a.at) == 'string' and a.at < cutoff and type(a.eventId) == 'string'
  if old and redis.call('HEXISTS', KEYS[1], a.eventId) == 0 then
    drop = true
  else
    keep[#keep + 1] = raw
  end
end
if drop then
  redis.call('DEL', KEYS[2])
  for i = 1, #keep, 1000 do redis.call('RPUSH', KEYS[2], unpack(keep, i, math.min(#keep, i + 999))) end
end
return n
