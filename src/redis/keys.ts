// Every Redis key Quill uses, named here and nowhere else (as BullMQ's queue-keys.ts does). A deployment's keys
// all start with its prefix (REDIS_PREFIX); on a Cluster the prefix is a hash tag (`{quill}`), so every key —
// and so every Lua script's keys and both BullMQ queues — lives in one slot. Scripts receive their keys in
// KEYS; where a script must derive keys from what it reads (a record id found in the outbox), the caller reads
// first and passes them. Changing a name here changes the stored layout: it needs a migration.

const b64 = (s: string) => Buffer.from(s).toString('base64url');

/** The deployment prefix as keys start with it: `quill` → `quill:`. */
export function keyPrefix(prefix: string): string {
  return prefix.endsWith(':') ? prefix : `${prefix}:`;
}

export function redisKeys(prefix: string) {
  const p = keyPrefix(prefix);
  return {
    prefix: p,

    // The stored layout's version and the lock its migrations run under (src/redis/layout.ts).
    layout: `${p}layout`,
    layoutLock: `${p}layout:lock`,

    // Submissions: the record hash, its indexes and the outbox (src/submissions/store).
    record: (id: string) => `${p}sub:${id}`,
    commandIndex: (commandId: string) => `${p}idx:cmd:${commandId}`,
    updateIndex: (updateId: string) => `${p}idx:update:${updateId}`,
    sequence: `${p}seq`,
    allIndex: `${p}idx:all`,
    partyIndex: (party: string) => `${p}idx:party:${party}`,
    statusIndex: (status: string) => `${p}idx:status:${status}`,
    partyStatusIndex: (party: string, status: string) => `${p}idx:ps:${party}:${status}`,
    /** An Idempotency-Key of one caller scope (subject and party): both base64url, so no `:` splits them. */
    idempotency: (scope: string, key: string) => `${p}idem:${b64(scope)}:${b64(key)}`,
    /** Keys disabled while submissions signed with them may still be queued. */
    disabledKeys: `${p}keys:disabled`,
    /** One entry per record created and per change into an announced status. */
    outbox: `${p}outbox`,
    /** Payload retention's place in the outbox. */
    retentionCursor: `${p}retention:cursor`,
    /** Record retention's place in the outbox (records final before its window are removed as it passes). */
    recordRetentionCursor: `${p}retention:records:cursor`,
    /** The BullMQ prefix of both queues (`<prefix>bull:<queue>:…`). */
    bull: `${p}bull`,

    // Intents (src/intents): a holding picked by a transfer being prepared, until its record is stored.
    intentHolding: (contractId: string) => `${p}intent:holding:${contractId}`,
    /** An intent's command id while one request prepares it (others with the same Idempotency-Key wait). */
    intentCommand: (commandId: string) => `${p}intent:cmd:${commandId}`,

    /** A party's policy decision and record write while a velocity rule counts its submissions (accept). */
    velocityLock: (party: string) => `${p}lock:velocity:${b64(party)}`,

    // The audit chain (src/audit).
    audit: `${p}audit`,
    auditHead: `${p}audit:head`,

    // Approval policy versions (src/policy/store).
    policySequence: `${p}policy:seq`,
    policyCurrent: `${p}policy:current`,
    policyVersions: `${p}policy:versions`,
    /** Proposed policy versions awaiting (or past) their governance quorum, by proposal id. */
    policyProposals: `${p}policy:proposals`,

    // Events and webhooks (src/events).
    events: `${p}events`,
    /** The newest event id retention removed. */
    eventsTrimmed: `${p}events:trimmed`,
    relayCursor: `${p}events:relay:cursor`,
    webhooks: `${p}webhooks`,
    webhookCursor: `${p}wh:cursor`,
    /** `<webhook>|<party>` of every chain that may hold events. */
    webhookChains: `${p}wh:chains`,
    webhookChain: (webhook: string, party: string) => `${p}wh:chain:${webhook}:${party}`,
    webhookDeliveries: (webhook: string) => `${p}wh:dlv:${webhook}`,
    webhookAttempts: (webhook: string) => `${p}wh:attempts:${webhook}`,
    webhookDead: (webhook: string) => `${p}wh:dead:${webhook}`,
    /** Where an event sink (src/events/sink.ts) is in the event log, and the lease of the process that runs it. */
    sinkCursor: (sink: string) => `${p}sink:${sink}:cursor`,
    sinkLease: (sink: string) => `${p}sink:${sink}:lease`,

    // The ledger watcher's party history (src/history).
    watchCheckpoint: `${p}watch:checkpoint`,
    historyByUpdate: `${p}hist:tx`,
    historyByHash: `${p}hist:hash`,
    historyOfParty: (party: string) => `${p}hist:party:${party}`,
    /** A party's active holdings and pending transfer instructions (hashes by contract id). */
    holdingsOfParty: (party: string) => `${p}hist:holdings:${party}`,
    instructionsOfParty: (party: string) => `${p}hist:instructions:${party}`,

    // Leases (src/redis/lease.ts): the watcher's, and the leader's of once-per-deployment work.
    watcherLease: `${p}watch:lease`,
    leaderLease: `${p}leader`,

    // The API's per-token accept rate limit.
    acceptRate: (subject: string, party: string) => `${p}rl:${b64(subject)}:${b64(party)}`,

    // The console: sessions (by the SHA-256 of the cookie) and used sign-in links. OIDC sign-ins under way live in
    // a signed cookie, not here (F6).
    consoleSession: (digest: string) => `${p}console:session:${digest}`,
    consoleLink: (jti: string) => `${p}console:link:${jti}`,
  } as const;
}

export type RedisKeys = ReturnType<typeof redisKeys>;
