-- One step of the ledger watcher (src/history/index-store.ts ingest): a batch's party history entries, the parties'
-- holdings and transfer instructions, its events (`transaction.received` for what Quill did not submit,
-- `transfer.incoming` for a new instruction to a party, `ledger.gap` for pruned ranges) and the checkpoint move,
-- at once, so a crash between them neither loses nor doubles anything; the checkpoint never goes backwards.
-- KEYS: 1 checkpoint, 2 transactions by update id, 3 update ids by external transaction hash, 4 event stream,
--       5.. the keys the items name by position: each party's history, and the command index of each command id
-- ARGV: 1 new checkpoint, 2 JSON [{u: update id, o: offset, h: hash or '', p: [party], j: json,
--       pk: [KEYS position of each party's history], ck: KEYS position of the command index, 0 = none}],
--       3 JSON gaps, 4 now (ISO)
--       Items that touch token-standard contracts also carry hk / tk: [KEYS position of each party's holdings /
--       transfer instructions], hs: [{c: contract id, o: owner, j: json}] holdings created, ti: [{c, s: sender,
--       r: receiver, j: json}] transfer instructions created, x: [contract id] consumed.
-- Returns how many (party, transaction) entries were new.
local cp = tonumber(redis.call('GET', KEYS[1]) or '-1')
local items = cjson.decode(ARGV[2])
local gaps = cjson.decode(ARGV[3])
local added = 0
for _, g in ipairs(gaps) do
  redis.call('XADD', KEYS[4], '*', 'type', 'ledger.gap', 'party', g.party, 'at', ARGV[4], 'body', cjson.encode(g))
end
for _, it in ipairs(items) do
  local fresh = redis.call('HSETNX', KEYS[2], it.u, it.j)
  if fresh == 0 then
    -- Already indexed (a catch-up overlapping the live read): add only the parties not yet there.
    local prev = cjson.decode(redis.call('HGET', KEYS[2], it.u))
    local merged = {}
    for _, p in ipairs(prev.parties) do merged[p] = true end
    for _, p in ipairs(it.p) do merged[p] = true end
    local list = {}
    for p, _ in pairs(merged) do table.insert(list, p) end
    table.sort(list)
    prev.parties = list
    redis.call('HSET', KEYS[2], it.u, cjson.encode(prev))
  end
  if it.h ~= '' then redis.call('HSET', KEYS[3], it.h, it.u) end
  -- A transaction Quill submitted itself is announced by its record, not as received.
  local ours = it.ck > 0 and redis.call('EXISTS', KEYS[it.ck]) == 1
  for i, p in ipairs(it.p) do
    -- Only a (party, transaction) pair seen for the first time changes the party's holdings: applied twice, an
    -- old creation would bring back a holding a later transaction consumed.
    if redis.call('ZADD', KEYS[it.pk[i]], 'NX', it.o, it.u) == 1 then
      added = added + 1
      if not ours then
        redis.call('XADD', KEYS[4], '*', 'type', 'transaction.received', 'party', p, 'at', ARGV[4], 'body', it.j)
      end
      if it.hk then
        local hk, tk = KEYS[it.hk[i]], KEYS[it.tk[i]]
        for _, c in ipairs(it.x) do
          redis.call('HDEL', hk, c)
          redis.call('HDEL', tk, c)
        end
        for _, h in ipairs(it.hs) do
          if h.o == p then redis.call('HSET', hk, h.c, h.j) end
        end
        for _, t in ipairs(it.ti) do
          if t.s == p or t.r == p then redis.call('HSET', tk, t.c, t.j) end
          -- Announced to its receiver even when Quill submitted it (the sender may be another wallet party).
          if t.r == p then
            redis.call('XADD', KEYS[4], '*', 'type', 'transfer.incoming', 'party', p, 'at', ARGV[4], 'body', t.j)
          end
        end
      end
    end
  end
end
local next = tonumber(ARGV[1])
if next > cp then redis.call('SET', KEYS[1], ARGV[1]) end
return added
