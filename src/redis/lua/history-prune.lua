-- History retention (src/history/retention.ts): removes party history entries the caller found older than
-- HISTORY_RETENTION_HOURS: the transaction by update id, its hash entry and its place in each party's history, in
-- one step. The caller read each entry first and passes every party history it names; an entry that now names a
-- party not passed (a catch-up merged one in meanwhile) stays for the next sweep. Holdings and pending
-- instructions are live state and never touched. Running twice removes nothing twice.
-- KEYS: 1 transactions by update id, 2 update ids by hash, 3.. party histories
-- ARGV: 1 the party history key prefix, 2 JSON [{u: update id, s: KEYS position of the history it was found in}]
-- Returns how many transactions went.
local given = {}
for i = 3, #KEYS do given[KEYS[i]] = true end
local n = 0
for _, it in ipairs(cjson.decode(ARGV[2])) do
  local raw = redis.call('HGET', KEYS[1], it.u)
  if not raw then
    -- A history entry without its transaction: nothing else names it.
    redis.call('ZREM', KEYS[it.s], it.u)
  else
    local t = cjson.decode(raw)
    local all = true
    for _, p in ipairs(t.parties or {}) do
      if not given[ARGV[1] .. p] then all = false end
    end
    if all then
      redis.call('HDEL', KEYS[1], it.u)
      local h = t.externalTransactionHash
      if type(h) == 'string' and h ~= '' and redis.call('HGET', KEYS[2], h) == it.u then
        redis.call('HDEL', KEYS[2], h)
      end
      for _, p in ipairs(t.parties or {}) do redis.call('ZREM', ARGV[1] .. p, it.u) end
      redis.call('ZREM', KEYS[it.s], it.u)
      n = n + 1
    end
  end
end
return n
