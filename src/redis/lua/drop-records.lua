-- Record retention (src/submissions/store/retention.ts): the caller read the outbox after the record-retention
-- cursor up to a cutoff, then read each record that became final in those entries and passes, per record, the keys
-- its content names; this removes each record with every index entry and its Idempotency-Key, and moves the
-- cursor, in one step. Only a record still in the final status the caller saw is removed; an index entry that now
-- names another record (a command id handed on) stays. A sweep that runs twice removes nothing twice; one that
-- read a cursor that moved meanwhile changes nothing.
-- KEYS: 1 cursor, 2 all index, then 6 per record: record, command index, update index (the record key when none),
--       party index, status index, party+status index; then the Idempotency-Keys, one per record (the record key
--       when none); then, record by record, the keys its 'idems' map names (requests whose command id it held)
-- ARGV: 1 the cursor the caller read from ('0-0' = none yet), 2 the new cursor, 3.. per record: id, status, the
--       number of keys its 'idems' map names
-- Returns the number of records removed, or -1 when the cursor had moved.
--- @include "record"
if (redis.call('GET', KEYS[1]) or '0-0') ~= ARGV[1] then return -1 end
local n = (#ARGV - 2) / 3
local removed = 0
local more = 3 + n * 7
for i = 0, n - 1 do
  local id, seen, extra = ARGV[3 + i * 3], ARGV[4 + i * 3], tonumber(ARGV[5 + i * 3])
  local k = 3 + i * 6
  local rec, cmd, upd, party, status, ps = KEYS[k], KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], KEYS[k + 5]
  local idem = KEYS[3 + n * 6 + i]
  local st = redis.call('HGET', rec, 'status')
  -- Never a record that is not final, nor one whose keys the caller derived from another status.
  if st and FINAL[st] and st == seen then
    -- A key named in 'idems' goes only while it still holds the value stored with its name.
    if extra > 0 then
      local ok, idems = pcall(cjson.decode, redis.call('HGET', rec, 'idems') or '{}')
      for j = more, more + extra - 1 do
        local v = ok and type(idems) == 'table' and idems[KEYS[j]]
        if v and redis.call('GET', KEYS[j]) == v then redis.call('DEL', KEYS[j]) end
      end
    end
    redis.call('DEL', rec)
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', party, id)
    redis.call('ZREM', status, id)
    redis.call('ZREM', ps, id)
    if redis.call('GET', cmd) == id then redis.call('DEL', cmd) end
    if upd ~= rec and redis.call('GET', upd) == id then redis.call('DEL', upd) end
    if idem ~= rec then
      local v = redis.call('GET', idem)
      if v then
        local ok, e = pcall(cjson.decode, v)
        if ok and type(e) == 'table' and e.id == id then redis.call('DEL', idem) end
      end
    end
    removed = removed + 1
  end
  more = more + extra
end
redis.call('SET', KEYS[1], ARGV[2])
return removed
