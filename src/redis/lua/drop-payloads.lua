-- Payload retention (src/submissions/store.ts dropPayloads): the caller read the outbox after the retention cursor
-- up to a cutoff and passes the records among those entries that became final; this drops each one's prepared
-- transaction and signatures (the record, its hash and the audit stay) and moves the cursor, in one step. A sweep
-- that runs twice drops nothing twice; one that read a cursor that moved meanwhile changes nothing.
-- KEYS: 1 retention cursor, 2.. the records to drop the payload of
-- ARGV: 1 the cursor the caller read from ('0-0' = none yet), 2 the new cursor (the last entry read), 3 now (ISO)
-- Returns the number of payloads dropped, or -1 when the cursor had moved.
if (redis.call('GET', KEYS[1]) or '0-0') ~= ARGV[1] then return -1 end
local dropped = 0
for i = 2, #KEYS do
  if redis.call('HDEL', KEYS[i], 'payload') == 1 then
    redis.call('HSET', KEYS[i], 'payloadDroppedAt', ARGV[3])
    dropped = dropped + 1
  end
end
redis.call('SET', KEYS[1], ARGV[2])
return dropped
