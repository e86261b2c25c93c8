-- A webhook chain's head with its webhook, state and event, read at once (a drain's first look and its polls for
-- new events, src/events/webhooks/drain.ts).
-- KEYS: 1 chain, 2 delivery states, 3 webhooks, 4 event log. ARGV: 1 the webhook's id.
--- @include "chain-head"
return chainHead({chain = KEYS[1], states = KEYS[2], webhooks = KEYS[3], events = KEYS[4]}, ARGV[1])
