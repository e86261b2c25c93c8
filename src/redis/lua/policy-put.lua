-- A new version of the approval policy, made current at once (src/policy/store.ts: an ungoverned change, or the
-- policy file at start).
-- KEYS: 1 sequence, 2 current, 3 versions list, 4 audit stream, 5 audit head
-- ARGV: 1 document json, 2 at, 3 by, 4 the version it replaces ('' = whichever is current), 5.. the audit entry
-- Returns the new version, or 'STALE' when another version became current meanwhile.
--- @include "audit-append"
--- @include "policy-version"
if not policyVersionIs(KEYS[1], ARGV[4]) then return 'STALE' end
local fields = {}
for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
return putPolicyVersion(
  { seq = KEYS[1], current = KEYS[2], versions = KEYS[3], audit = KEYS[4], head = KEYS[5] },
  ARGV[1], ARGV[2], ARGV[3], fields)
