-- One relay step (src/events/relay.ts): the caller read the outbox after the relay's cursor; this appends one
-- event per entry read, with the record as it is now as its body (never the prepared transaction or signatures:
-- those live in another field), and moves the cursor, in one step. A relay that read a cursor that moved meanwhile
-- (another relay did the step) changes nothing: no event is written twice, none is skipped.
-- KEYS: 1 relay cursor, 2 event stream, 3.. the record of each entry, in order
-- ARGV: 1 the cursor the caller read from ('0-0' = none yet), 2 the new cursor (the last entry read),
--       3.. per entry: event type, party, time
-- Returns the number of events written, or -1 when the cursor had moved.
if (redis.call('GET', KEYS[1]) or '0-0') ~= ARGV[1] then return -1 end
for i = 3, #KEYS do
  local a = 3 + (i - 3) * 3
  local body = redis.call('HGET', KEYS[i], 'record') or 'null'
  redis.call('XADD', KEYS[2], '*', 'type', ARGV[a], 'party', ARGV[a + 1], 'at', ARGV[a + 2], 'body', body)
end
redis.call('SET', KEYS[1], ARGV[2])
return #KEYS - 2
