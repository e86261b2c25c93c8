-- A new version of the approval policy (src/policy): numbered, written with its author and time, made current, and
-- recorded in the audit chain (needs the "audit-append" include first). `k`: {seq, current, versions, audit, head};
-- `fields`: the caller's audit entry (src/audit auditFields), to which the version is added. Returns the version.
local function putPolicyVersion(k, json, at, by, fields)
  local v = redis.call('INCR', k.seq)
  local entry = '{"version":' .. v .. ',"at":' .. cjson.encode(at) .. ',"by":' .. cjson.encode(by) ..
    ',"document":' .. json .. '}'
  redis.call('SET', k.current, entry)
  redis.call('RPUSH', k.versions, entry)
  auditAppend(k.audit, k.head, fields, { 'version', tostring(v) })
  return v
end

-- Whether the current version is `expected` ('' = any; '0' = none yet): a change made against another version
-- would silently undo what came between.
local function policyVersionIs(seqKey, expected)
  if expected == '' then return true end
  return tostring(tonumber(redis.call('GET', seqKey) or '0')) == expected
end
