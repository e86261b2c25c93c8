-- Creates a submission record with its indexes, unless its command id is taken (src/submissions/store.ts create).
-- KEYS: 1 record, 2 command index, 3 sequence, 4 all index, 5 party index, 6 status index, 7 party+status index,
--       8 idempotency key (the record key when none), 9 audit stream, 10 audit head, 11 outbox,
--       12 the record the command index named when the caller read it (the new record's key when none)
-- ARGV: 1 id, 2 record json, 3 payload json, 4 status, 5 hash hex, 6 idempotency value ('' = none),
--       7 the id the command index held when the caller read it ('' = none), 8 n = number of outbox field/value
--       items that follow (0 = none), 9..8+n those items, 9+n.. the audit entries, one per signature made for this
--       request (each as its item count, then its items: src/audit auditFields, its pairs then chainDigest); every
--       signature is logged whatever the outcome, with `stored` true or false, and when false
--       `existingSubmission` names the record that holds the command id
-- Returns {1, id, seq} created, {0, existingId} taken by a live or same-hash record, {-1} when the command index
-- changed since the caller read it (read again and retry). A command id whose record ended final but not
-- committed (rejected, expired) with another hash is handed to the new record.
--- @include "record"
--- @include "audit-append"
local OUTN = tonumber(ARGV[8])
local existing = redis.call('GET', KEYS[2])
if (existing or '') ~= ARGV[7] then return {-1} end
local function audit(stored)
  local outcome = { 'stored', stored }
  if stored == 'false' then
    outcome[3] = 'existingSubmission'
    outcome[4] = existing
  end
  local i = 9 + OUTN
  while i <= #ARGV do
    local n = tonumber(ARGV[i])
    local entry = {}
    for j = i + 1, i + n do entry[#entry + 1] = ARGV[j] end
    auditAppend(KEYS[9], KEYS[10], entry, outcome)
    i = i + n + 1
  end
end
if existing then
  local ex = redis.call('HMGET', KEYS[12], 'status', 'hash')
  local st, h = ex[1], ex[2]
  if not st or h == ARGV[5] or not FINAL[st] or st == 'committed' then
    -- This request's Idempotency-Key names its own id, never stored: the record that holds the command id keeps the
    -- key's name and value (its 'idems' map), so that record retention removes the key with that record.
    if ARGV[6] ~= '' and st and redis.call('SET', KEYS[8], ARGV[6], 'NX') then
      local held = redis.call('HGET', KEYS[12], 'idems')
      local ok, idems = pcall(cjson.decode, held or '{}')
      if not ok or type(idems) ~= 'table' then idems = {} end
      idems[KEYS[8]] = ARGV[6]
      redis.call('HSET', KEYS[12], 'idems', cjson.encode(idems))
    end
    audit('false')
    return {0, existing}
  end
end
audit('true')
local seq = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], 'v', 1, 'status', ARGV[4], 'record', ARGV[2], 'schemaVersion', RECORD_SCHEMA,
  'payload', ARGV[3], 'seq', seq, 'hash', ARGV[5])
redis.call('SET', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[4], seq, ARGV[1])
redis.call('ZADD', KEYS[5], seq, ARGV[1])
redis.call('ZADD', KEYS[6], seq, ARGV[1])
redis.call('ZADD', KEYS[7], seq, ARGV[1])
if ARGV[6] ~= '' then redis.call('SET', KEYS[8], ARGV[6]) redis.call('HSET', KEYS[1], 'idem', KEYS[8]) end
if OUTN > 0 then redis.call('XADD', KEYS[11], '*', unpack(ARGV, 9, 8 + OUTN)) end
return {1, ARGV[1], seq}
