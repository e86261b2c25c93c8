-- One entry appended to the audit chain, optionally with one hash field written in the same step (the signature
-- written beside an entry; src/audit AuditLog.append).
-- KEYS: 1 audit stream, 2 audit head, 3 the hash to write (the stream itself when none)
-- ARGV: 1 hash field ('' = none), 2 its value, 3.. the entry (src/audit auditFields)
--- @include "audit-append"
if ARGV[1] ~= '' then redis.call('HSET', KEYS[3], ARGV[1], ARGV[2]) end
local entry = {}
for i = 3, #ARGV do entry[#entry + 1] = ARGV[i] end
auditAppend(KEYS[1], KEYS[2], entry, {})
return 1
