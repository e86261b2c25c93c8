-- Compare-and-set of a submission record (src/submissions/store.ts transition): applies only if the version
-- matches and the status never moves backwards. The write that moves a record into an announced status (the
-- final ones, awaiting approval), or changes a record awaiting approval, appends its outbox entry in the same
-- step, so the outbox holds exactly one such entry per change; a final record is never written again.
-- KEYS: 1 record, 2 status index of the status the caller read, 3 status index of the new status, 4 and 5 the
--       party+status indexes of the same two, 6 update index (the record key when none), 7 outbox, 8 audit stream,
--       9 audit head
-- ARGV: 1 expected version, 2 the status the caller read, 3 new status, 4 new record json, 5 id,
--       6 update id ('' = none), 7 n = number of outbox field/value items that follow (when the change is
--       announced), 8..7+n those, 8+n.. an audit entry (src/audit auditFields: an approval decision), appended to
--       the chain when the write lands
-- Returns {1, newVersion} | {0, currentVersion} (conflict) | {-1, status} (final or backwards: refused) |
-- {-2, 'missing'}
--- @include "record"
--- @include "audit-append"
local cur = redis.call('HMGET', KEYS[1], 'v', 'status', 'seq')
if not cur[1] then return {-2, 'missing'} end
local old = cur[2]
if FINAL[old] then return {-1, old} end
if RANK[ARGV[3]] < RANK[old] then return {-1, old} end
-- The version and the status change together: a matching version means the caller's indexes are the record's.
if cur[1] ~= ARGV[1] or old ~= ARGV[2] then return {0, cur[1]} end
local v = tonumber(cur[1]) + 1
redis.call('HSET', KEYS[1], 'v', v, 'status', ARGV[3], 'record', ARGV[4], 'schemaVersion', RECORD_SCHEMA)
if old ~= ARGV[3] then
  local seq = cur[3]
  redis.call('ZREM', KEYS[2], ARGV[5])
  redis.call('ZADD', KEYS[3], seq, ARGV[5])
  redis.call('ZREM', KEYS[4], ARGV[5])
  redis.call('ZADD', KEYS[5], seq, ARGV[5])
end
if ARGV[6] ~= '' then redis.call('SET', KEYS[6], ARGV[5]) end
local OUTN = tonumber(ARGV[7])
-- Into an announced status, or any change of a record awaiting approval (a decision, a policy review).
if OUTN > 0 and ((ANNOUNCE[ARGV[3]] and old ~= ARGV[3]) or old == 'awaiting_approval') then
  redis.call('XADD', KEYS[7], '*', unpack(ARGV, 8, 7 + OUTN))
end
if #ARGV > 7 + OUTN then
  local entry = {}
  for i = 8 + OUTN, #ARGV do entry[#entry + 1] = ARGV[i] end
  auditAppend(KEYS[8], KEYS[9], entry, {})
end
return {1, v}
