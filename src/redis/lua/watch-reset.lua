-- The ledger moved backwards (src/history/index-store.ts reset): the watcher's checkpoint moves back (to the
-- earliest offset the ledger holds) and a `ledger.reset` event is written, at once, and only when the checkpoint still is the one found beyond
-- the ledger end (another watcher may have done it already).
-- KEYS: 1 checkpoint, 2 event stream
-- ARGV: 1 the checkpoint found, 2 the new checkpoint, 3 the event's JSON body, 4 now (ISO)
-- Returns 1 when it moved the checkpoint, else 0.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('XADD', KEYS[2], '*', 'type', 'ledger.reset', 'party', '', 'at', ARGV[4], 'body', ARGV[3])
return 1
