-- A new version of the approval policy (src/policy/store.ts): numbered, written with its author and time, made
-- current, and recorded in the audit chain, in one step.
-- KEYS: 1 sequence, 2 current, 3 versions list, 4 audit stream, 5 audit head
-- ARGV: 1 document json, 2 at, 3 by, 4.. the audit entry (src/audit auditFields: kind, at, actor, the document's
--       SHA-256), to which the script adds the version
-- Returns the new version.
--- @include "audit-append"
local v = redis.call('INCR', KEYS[1])
local entry = '{"version":' .. v .. ',"at":' .. cjson.encode(ARGV[2]) .. ',"by":' .. cjson.encode(ARGV[3]) ..
  ',"document":' .. ARGV[1] .. '}'
redis.call('SET', KEYS[2], entry)
redis.call('RPUSH', KEYS[3], entry)
local fields = {}
for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
auditAppend(KEYS[4], KEYS[5], fields, { 'version', tostring(v) })
return v
