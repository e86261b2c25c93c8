// Issue 32 item 4, bounded memory: submissions pushed through the store, the relay, webhook delivery states and the
// watcher's history, with retention windows shorter than the run, leave Redis flat: after each sweep the keys under
// the prefix and their bytes (MEMORY USAGE) return under a bound, whatever was pushed before; only the audit chain
// (kept by design) grows. The first test also measures each structure's bytes per submission in steady state
// (printed; docs/operations.md quotes them).
import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import type { SignatureEntry } from '../../../src/audit/index.ts';
import { dispatchStep, EventLog } from '../../../src/events/index.ts';
import { HistoryIndex, type IndexedTransaction, pruneHistory } from '../../../src/history/index.ts';
import {
  dropRecords,
  type SubmissionRecord,
  SubmissionStore,
  trimOutbox,
} from '../../../src/submissions/index.ts';
import { prepared } from '../../support/api-harness.ts';
import { conn, parts } from '../../support/events.ts';
import { record, testRedis } from '../../support/records.ts';
import { consumed, holdingCreated } from '../../support/token-events.ts';
import { footprint, relayAll, sleep } from './support.ts';

const redis = testRedis();
afterAll(() => redis.quit());

const A = `alice::1220${'ab'.repeat(32)}`;
const B = `bob::1220${'cd'.repeat(32)}`;
const AMULET = { admin: `dso::1220${'ef'.repeat(32)}`, id: 'Amulet' };
const cid = () => `00${randomBytes(32).toString('hex')}ca1112${randomBytes(16).toString('hex')}`;

/** A committed transfer as the ledger returns it: one holding consumed, the amount and the change created. */
function ledgerTx(r: Rig, updateId: string, offset: number, at: string) {
  const spent = r.holding ?? cid();
  r.holding = cid();
  return {
    updateId,
    commandId: `cmd-${updateId}`,
    workflowId: '',
    effectiveAt: at,
    recordTime: at,
    offset,
    synchronizerId: `global-domain::1220${'aa'.repeat(32)}`,
    traceContext: null,
    events: [
      consumed(spent, A),
      holdingCreated(cid(), B, AMULET, '40.0000000000', null, at),
      // The change: the party's one live holding, spent by its next transfer.
      holdingCreated(r.holding, A, AMULET, '60.0000000000', null, at),
    ],
  };
}

interface Rig {
  prefix: string;
  store: SubmissionStore;
  events: EventLog;
  hist: HistoryIndex;
  d: ReturnType<typeof parts>;
  webhook: string;
  n: number;
  holding?: string;
}

async function rig(): Promise<Rig> {
  const prefix = `mem-${randomBytes(4).toString('hex')}:`;
  const d = parts({}, prefix);
  const { webhook } = await d.hooks.create({
    url: 'http://127.0.0.1:1/x',
    types: [],
    party: null,
    description: null,
  });
  await dispatchStep(d.deliveries); // the dispatcher's cursor at the (empty) end
  return {
    prefix,
    store: new SubmissionStore(redis, prefix),
    events: new EventLog(redis, prefix, { maxAgeMs: 1, maxCount: 0 }),
    hist: new HistoryIndex(redis, prefix),
    d,
    webhook: webhook.id,
    n: 0,
  };
}

/** One submission as the wallet makes it: accepted with an Idempotency-Key and a signature, executed, committed,
 * relayed, delivered to one webhook, and seen by the watcher. */
async function push(r: Rig, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const n = ++r.n;
    const p = prepared(A);
    const rec: SubmissionRecord = record({ status: 'queued', party: A, preparedTransactionHash: p.hashHex });
    const sig: SignatureEntry = {
      at: rec.createdAt,
      actor: 'tok-submit',
      party: A,
      keyFingerprint: `1220${'ab'.repeat(32)}`,
      hash: p.hashHex,
      commandId: rec.commandId,
      submission: rec.id,
    };
    await r.store.create(
      rec,
      {
        preparedTransaction: p.body.preparedTransaction,
        partySignatures: {
          signatures: [
            {
              party: A,
              signatures: [
                {
                  format: 'SIGNATURE_FORMAT_CONCAT',
                  signature: randomBytes(64).toString('base64'),
                  signedBy: `1220${'ab'.repeat(32)}`,
                  signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
                },
              ],
            },
          ],
        },
      },
      { scope: 'tok-submit|alice', key: `order-${rec.id}`, fingerprint: randomBytes(32).toString('hex') },
      sig,
    );
    const updateId = `1220${randomBytes(32).toString('hex')}`;
    const at = new Date().toISOString();
    const tx = ledgerTx(r, updateId, n, at);
    await r.store.update(rec.id, (x) => ({ ...x, status: 'executing' }));
    await r.store.update(rec.id, (x) => ({
      ...x,
      status: 'committed',
      updateId,
      completionOffset: n,
      transaction: tx as never,
      attempts: [
        {
          submissionId: randomBytes(16).toString('hex'),
          startedAt: at,
          finishedAt: at,
          outcome: 'committed',
          deduplicationSeconds: 600,
          error: null,
        },
      ],
    }));
    const indexed = {
      updateId,
      offset: n,
      recordTime: at,
      commandId: rec.commandId,
      externalTransactionHash: p.hashHex,
      parties: [A],
      transaction: tx,
    } as unknown as IndexedTransaction;
    await r.hist.ingest({ transactions: [indexed], checkpoint: n });
  }
  await relayAll(r.store);
  // Webhook fan-out, then each event delivered at the first attempt.
  while (await dispatchStep(r.d.deliveries, 500));
  const states = await redis.hgetall(r.d.deliveries.keys.webhookDeliveries(r.webhook));
  for (const raw of Object.values(states)) {
    const s = JSON.parse(raw);
    if (s.state !== 'pending') continue;
    const now = new Date().toISOString();
    await r.d.deliveries.noteAttempt(r.webhook, {
      eventId: s.eventId,
      attempt: 1,
      at: now,
      statusCode: 200,
      latencyMs: 12,
      error: null,
    });
    await r.d.deliveries.setState(r.webhook, {
      ...s,
      state: 'delivered',
      attempts: 1,
      firstAttemptAt: now,
      lastAttemptAt: now,
      lastStatusCode: 200,
      lastLatencyMs: 12,
      lastError: null,
    });
    await redis.lpop(r.d.deliveries.keys.webhookChain(r.webhook, s.party));
  }
}

/** Every retention with every window already passed. */
async function sweep(r: Rig): Promise<void> {
  await sleep(3);
  const now = Date.now();
  await r.store.dropPayloads(now);
  await dropRecords(r.store, now);
  await trimOutbox(r.store, { records: true });
  await r.events.trim(now);
  await r.d.deliveries.prune(now);
  await pruneHistory(redis, r.prefix, [A, B], now);
}

const round = (x: number) => Math.round(x);

describe('bounded memory', () => {
  it('measures each structure per submission, and retention takes all but the audit chain back', async () => {
    const r = await rig();
    const N = 500;
    const before = await footprint(redis, r.prefix);
    await push(r, N);
    const full = await footprint(redis, r.prefix);
    await r.store.dropPayloads(Date.now() + 1);
    const noPayload = await footprint(redis, r.prefix);
    // BullMQ's completed submission jobs, kept by count and age (src/submissions/queue.ts KEEP_JOBS).
    const qname = 'mem-jobs';
    const q = new Queue(qname, { connection: conn(), prefix: `${r.prefix}bull` });
    const w = new Worker(qname, async () => undefined, {
      connection: conn(),
      prefix: `${r.prefix}bull`,
      removeOnComplete: { age: 7 * 86_400, count: 200_000 },
    });
    const bullBefore = (await footprint(redis, r.prefix)).bytes.bull ?? 0;
    for (let i = 0; i < N; i++)
      await q.add('execute', { id: `sub_${randomBytes(15).toString('base64url')}` });
    while ((await q.getCompletedCount()) < N) await sleep(50);
    const bull = ((await footprint(redis, r.prefix)).bytes.bull ?? 0) - bullBefore;
    await w.close();
    await q.obliterate({ force: true });
    await q.close();

    const per = (kind: string, f = full) => round(((f.bytes[kind] ?? 0) - (before.bytes[kind] ?? 0)) / N);
    const table: Record<string, number> = {
      'sub:<id> (record, with payload)': per('sub'),
      'sub:<id> (record, payload dropped)': per('sub', noPayload),
      'idx:cmd:<commandId>': per('idx:cmd'),
      'idx:update:<updateId>': per('idx:update'),
      'idem:<scope>:<key>': per('idem'),
      'idx:all + idx:party + idx:status + idx:ps':
        per('idx:all') + per('idx:party') + per('idx:status') + per('idx:ps'),
      'outbox (2 entries)': per('outbox'),
      'events (2 events)': per('events'),
      'audit (1 signature entry)': per('audit'),
      'wh:dlv:<webhook> (2 states)': per('wh:dlv'),
      'wh:attempts:<webhook> (2 attempts, list capped at 1000)': per('wh:attempts'),
      'hist:tx + hist:hash + hist:party (1 transaction)':
        per('hist:tx') + per('hist:hash') + per('hist:party'),
      'bull:<queue> (1 completed job)': round(bull / N),
    };
    console.log(`bytes per submission (MEMORY USAGE, ${N} submissions):\n${JSON.stringify(table, null, 2)}`);
    for (const v of Object.values(table)) expect(v).toBeGreaterThan(0);

    await sweep(r);
    const after = await footprint(redis, r.prefix);
    console.log(`after retention: ${JSON.stringify(after)}`);
    // Only fixed-size keys are left, and the audit chain.
    expect(after.count).toBeLessThanOrEqual(24);
    expect(after.keys.sub ?? 0).toBe(0);
    expect(after.keys.idem ?? 0).toBe(0);
    expect(after.keys['idx:cmd'] ?? 0).toBe(0);
    expect(after.keys['idx:update'] ?? 0).toBe(0);
    expect(await redis.xlen(r.store.keys.outbox)).toBe(0);
    expect(await redis.xlen(r.store.keys.events)).toBe(0);
    expect(await redis.hlen(r.store.keys.historyByUpdate)).toBe(0);
    expect(await redis.xlen(r.store.keys.audit)).toBe(N);
    expect(after.total - (after.bytes.audit ?? 0)).toBeLessThan(32_768);
    await r.d.close();
  });

  it('stays flat over 2,000 submissions with windows shorter than the run', async () => {
    const r = await rig();
    const sizes: number[] = [];
    const counts: number[] = [];
    let audit = 0;
    for (let i = 0; i < 5; i++) {
      await push(r, 400);
      await sweep(r);
      const f = await footprint(redis, r.prefix);
      sizes.push(f.total - (f.bytes.audit ?? 0));
      counts.push(f.count);
      expect(f.bytes.audit ?? 0).toBeGreaterThan(audit); // the audit chain is kept: it grows
      audit = f.bytes.audit ?? 0;
    }
    console.log(
      `after each 400: bytes (without the audit chain) ${sizes.join(', ')}; keys ${counts.join(', ')}`,
    );
    for (const c of counts) expect(c).toBeLessThanOrEqual(24);
    // Flat: after 2,000 what is left is what was left after 400 (stream and hash internals may vary a little).
    for (const s of sizes) expect(s).toBeLessThan(32_768);
    expect(Math.max(...sizes)).toBeLessThan((sizes[0] as number) * 1.5 + 2048);
    await r.d.close();
  });
});
