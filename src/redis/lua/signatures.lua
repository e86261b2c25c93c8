-- Signatures added to a submission (src/submissions/store/records.ts addSignatures): the record and its payload
-- (the signatures the worker sends) written together, by compare-and-set on the version and the status the
-- caller read, so of concurrent signers exactly one write moves a round that reaches its threshold on. Each
-- signature's audit entry is appended in the same step; an outbox entry (a `submission.signature` event) too
-- when given.
-- KEYS: 1 record, 2 status index of the status the caller read, 3 status index of the new status, 4 and 5 the
--       party+status indexes of the same two, 6 outbox, 7 audit stream, 8 audit head
-- ARGV: 1 expected version, 2 the status the caller read, 3 new status, 4 new record json, 5 payload json, 6 id,
--       7 n = number of outbox field/value items that follow (0 = none), 8..7+n those, then the audit entries,
--       each as its item count followed by its items (src/audit auditFields)
-- Returns {1, newVersion} | {0, currentVersion} (conflict) | {-1, status} (final or backwards: refused) |
-- {-2, 'missing'}
--- @include "record"
--- @include "audit-append"
local cur = redis.call('HMGET', KEYS[1], 'v', 'status', 'seq')
if not cur[1] then return {-2, 'missing'} end
local old = cur[2]
if FINAL[old] then return {-1, old} end
if RANK[ARGV[3]] < RANK[old] then return {-1, old} end
if cur[1] ~= ARGV[1] or old ~= ARGV[2] then return {0, cur[1]} end
local v = tonumber(cur[1]) + 1
redis.call('HSET', KEYS[1], 'v', v, 'status', ARGV[3], 'record', ARGV[4], 'payload', ARGV[5],
  'schemaVersion', RECORD_SCHEMA)
if old ~= ARGV[3] then
  local seq = cur[3]
  redis.call('ZREM', KEYS[2], ARGV[6])
  redis.call('ZADD', KEYS[3], seq, ARGV[6])
  redis.call('ZREM', KEYS[4], ARGV[6])
  redis.call('ZADD', KEYS[5], seq, ARGV[6])
end
local OUTN = tonumber(ARGV[7])
if OUTN > 0 then redis.call('XADD', KEYS[6], '*', unpack(ARGV, 8, 7 + OUTN)) end
local i = 8 + OUTN
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  local entry = {}
  for j = i + 1, i + n do entry[#entry + 1] = ARGV[j] end
  auditAppend(KEYS[7], KEYS[8], entry, {})
  i = i + n + 1
end
return {1, v}
