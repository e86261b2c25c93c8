-- Outbox retention (src/submissions/store/retention.ts trimOutbox): removes the entries every consumer with a
-- persisted cursor has passed (the relay, payload retention, record retention when on). A consumer that never
-- ran (no cursor) holds everything: nothing is trimmed, and the outbox grows visibly (quill_outbox_entries).
-- KEYS: 1 outbox, 2.. the cursors. Returns how many entries went.
local min_ms, min_seq = nil, nil
for i = 2, #KEYS do
  local c = redis.call('GET', KEYS[i])
  if not c then return 0 end
  local dash = string.find(c, '-', 1, true)
  local ms, seq = tonumber(string.sub(c, 1, dash - 1)), tonumber(string.sub(c, dash + 1))
  if min_ms == nil or ms < min_ms or (ms == min_ms and seq < min_seq) then min_ms, min_seq = ms, seq end
end
if min_ms == nil or (min_ms == 0 and min_seq == 0) then return 0 end
-- MINID keeps ids >= the bound: the one after the slowest cursor (that entry itself was handled).
return redis.call('XTRIM', KEYS[1], 'MINID', string.format('%.0f', min_ms) .. '-' .. string.format('%.0f', min_seq + 1))
