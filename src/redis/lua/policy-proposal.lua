-- One step of a governed policy change (src/policy/governance.ts): a proposal written, decided or closed, by
-- compare-and-set on its stored JSON, with its audit entry; the step that reaches the quorum also makes the
-- document the next version, only if the version it was proposed against is still current.
-- KEYS: 1 proposals hash, 2 policy sequence, 3 current, 4 versions list, 5 audit stream, 6 audit head
-- ARGV: 1 proposal id, 2 its JSON as read ('' = new), 3 its new JSON, 4 n = the step's audit entry length,
--       5..4+n the step's audit entry; when applying, then: the document JSON, at, by, the base version, and the
--       version's audit entry.
-- Returns 'CHANGED' (the proposal changed since it was read), 'STALE' (another version is current), or the new
-- version (0 when this step applies nothing).
--- @include "audit-append"
--- @include "policy-version"
local stored = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if stored ~= ARGV[2] then return 'CHANGED' end
local n = tonumber(ARGV[4])
local step = {}
for i = 5, 4 + n do step[#step + 1] = ARGV[i] end
local at = 5 + n
local apply = #ARGV >= at
if apply and not policyVersionIs(KEYS[2], ARGV[at + 3]) then return 'STALE' end
auditAppend(KEYS[5], KEYS[6], step, {})
local v = 0
if apply then
  local fields = {}
  for i = at + 4, #ARGV do fields[#fields + 1] = ARGV[i] end
  v = putPolicyVersion(
    { seq = KEYS[2], current = KEYS[3], versions = KEYS[4], audit = KEYS[5], head = KEYS[6] },
    ARGV[at], ARGV[at + 1], ARGV[at + 2], fields)
end
-- An applied proposal's JSON already names its version: the base version + 1, as the check above guarantees.
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return v
