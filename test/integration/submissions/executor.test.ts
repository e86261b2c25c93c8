// The worker's step logic against a scripted ledger (commit, commit-then-timeout, 503, definite refusal)
// and the real Redis store: exactly one commit, reconciliation of unknown outcomes, expiry.
import { randomBytes } from 'node:crypto';
import { type JsTransaction, LedgerError, type LedgerErrorInit } from '@quill/canton/ledger';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  type ExecuteRequest,
  type ExecutorConfig,
  executeStep,
  type LedgerPort,
  type SubmissionRecord,
  SubmissionStore,
} from '../../../src/submissions/index.ts';
import { record } from '../../support/records.ts';

const redis = new Redis(inject('redisUrl'));
afterAll(() => redis.quit());

/** The JsTransaction fields these tests do not look at. */
const TX_FIELDS = {
  effectiveAt: '2026-01-01T00:00:00Z',
  recordTime: '2026-01-01T00:00:00Z',
  synchronizerId: 'sync::1220aa',
  events: [],
};

type Behaviour = 'commit' | 'commitThenTimeout' | 'commitThenRefuse' | 'unavailable' | 'reject' | 'timeout';

class ScriptedLedger implements LedgerPort {
  readonly log: JsTransaction[] = [];
  readonly commits = new Map<string, number>();
  readonly submissionIds: string[] = [];
  readonly dedupSeconds: number[] = [];
  /** The ledger-end read answers the participant's redacted 401. */
  endUnauthenticated = false;
  constructor(
    private readonly script: Behaviour[],
    private readonly hashOf: (body: ExecuteRequest) => string,
    private readonly commandOf: (body: ExecuteRequest) => string,
  ) {}
  private err(code: string, over: Partial<LedgerErrorInit>) {
    return new LedgerError({ code, message: code, ...over });
  }
  async execute(body: ExecuteRequest): Promise<JsTransaction> {
    this.submissionIds.push(String(body.submissionId));
    const d = body.deduplicationPeriod as { DeduplicationDuration: { value: { seconds: number } } };
    this.dedupSeconds.push(d.DeduplicationDuration.value.seconds);
    const cmd = this.commandOf(body);
    const b = this.script.shift() ?? 'commit';
    if (b === 'unavailable')
      throw this.err('UNAVAILABLE', { status: 503, errorCategory: 1, retryable: true });
    if (b === 'timeout') throw this.err('TIMEOUT', { retryable: true, outcomeUnknown: true });
    if (b === 'reject') throw this.err('FAILED_TO_EXECUTE_TRANSACTION', { status: 400, errorCategory: 8 });
    const earlier = this.log.find((t) => t.commandId === cmd);
    if (earlier) {
      throw this.err('DUPLICATE_COMMAND', {
        status: 409,
        errorCategory: 10,
        definiteAnswer: true,
        context: { completion_offset: String(earlier.offset) },
      });
    }
    const tx: JsTransaction = {
      updateId: `upd-${randomBytes(4).toString('hex')}`,
      offset: this.log.length + 1,
      commandId: cmd,
      externalTransactionHash: this.hashOf(body),
      ...TX_FIELDS,
    };
    this.log.push(tx);
    this.commits.set(cmd, (this.commits.get(cmd) ?? 0) + 1);
    // The participant reads the committed transaction with the caller's format only now, and refuses the format.
    if (b === 'commitThenRefuse')
      throw this.err('PACKAGE_NAMES_NOT_FOUND', { status: 404, errorCategory: 11, definiteAnswer: false });
    if (b === 'commitThenTimeout')
      throw this.err('REQUEST_TIME_OUT', {
        status: 504,
        errorCategory: 3,
        retryable: true,
        outcomeUnknown: true,
      });
    return tx;
  }
  async ledgerEnd() {
    if (this.endUnauthenticated) throw this.err('NA', { status: 401, errorCategory: -1 });
    return this.log.length;
  }
  async transactionAt(offset: number) {
    return this.log[offset - 1];
  }
  async *transactions(_party: string, begin: number, end: number) {
    for (const t of this.log) if (t.offset > begin && t.offset <= end) yield t;
  }
}

const config: ExecutorConfig = {
  maxAttempts: 4,
  baseDelayMs: 1,
  maxDelayMs: 5,
  dedup: { marginSeconds: 60, maxSeconds: 3600 },
  ledgerTimeoutMs: 1000,
  preparationToleranceMs: 86_400_000,
  settleGraceMs: 60_000,
};

async function setup(script: Behaviour[], over: Partial<SubmissionRecord> = {}) {
  const store = new SubmissionStore(redis, `ex-${randomBytes(4).toString('hex')}`);
  const hash = randomBytes(32).toString('hex');
  const rec = record({ status: 'queued', preparedTransactionHash: hash, ...over });
  await store.create(rec, { preparedTransaction: rec.commandId, partySignatures: { signatures: [] } });
  const ledger = new ScriptedLedger(
    script,
    () => hash,
    (b) => String(b.preparedTransaction),
  );
  const run = async () => {
    for (let i = 0; i < 20; i++) {
      const s = await executeStep({ store, ledger, config }, rec.id);
      if (s.kind === 'done') return s.record;
      if (s.kind === 'wait-until') return undefined;
    }
    throw new Error('did not finish');
  };
  return { store, ledger, rec, run };
}

describe('executeStep', () => {
  it('commits on the first answer and records update id, offset and transaction', async () => {
    const { run, ledger, rec } = await setup(['commit']);
    const done = await run();
    expect(done).toMatchObject({
      status: 'committed',
      updateId: ledger.log[0]?.updateId,
      completionOffset: 1,
    });
    expect(done?.attempts).toHaveLength(1);
    expect(done?.attempts[0]?.outcome).toBe('committed');
    expect(ledger.commits.get(rec.commandId)).toBe(1);
  });

  it('settles a commit whose answer was lost through DUPLICATE_COMMAND, with fresh submission ids', async () => {
    const { run, ledger, rec } = await setup(['unavailable', 'commitThenTimeout', 'commit']);
    const done = await run();
    expect(done?.status).toBe('committed');
    expect(done?.updateId).toBe(ledger.log[0]?.updateId);
    expect(ledger.commits.get(rec.commandId)).toBe(1);
    expect(new Set(ledger.submissionIds).size).toBe(ledger.submissionIds.length);
    expect(done?.attempts.map((a) => a.outcome)).toEqual(['retryable', 'ambiguous', 'duplicate']);
    // each attempt's dedup period reaches back to the first attempt
    expect(ledger.dedupSeconds.every((s) => s >= 60)).toBe(true);
  });

  it('stops at a definite rejection', async () => {
    const { run, ledger } = await setup(['reject']);
    const done = await run();
    expect(done).toMatchObject({ status: 'rejected', error: { code: 'FAILED_TO_EXECUTE_TRANSACTION' } });
    expect(ledger.log).toHaveLength(0);
  });

  it('checks the ledger before believing a refusal that can follow a commit, even on a first attempt', async () => {
    const { run, ledger, rec } = await setup(['commitThenRefuse']);
    const done = await run();
    expect(done).toMatchObject({ status: 'committed', updateId: ledger.log[0]?.updateId });
    expect(done?.attempts).toHaveLength(1);
    expect(done?.attempts[0]).toMatchObject({
      outcome: 'duplicate',
      error: { code: 'PACKAGE_NAMES_NOT_FOUND' },
    });
    expect(ledger.commits.get(rec.commandId)).toBe(1);
  });

  it('stops before a first attempt when the ledger refuses our credentials: nothing sent', async () => {
    const { run, ledger } = await setup(['commit']);
    ledger.endUnauthenticated = true;
    const done = await run();
    expect(done).toMatchObject({ status: 'rejected', error: { code: 'LEDGER_UNAUTHENTICATED' } });
    expect(done?.attempts).toHaveLength(0);
    expect(ledger.submissionIds).toHaveLength(0);
  });

  it('checks the ledger before believing a rejection that follows an unknown outcome', async () => {
    const { run, ledger } = await setup(['commitThenTimeout', 'reject']);
    const done = await run();
    expect(done?.status).toBe('committed');
    expect(ledger.log).toHaveLength(1);
  });

  it('expires when attempts run out and every one definitely failed', async () => {
    const { run, ledger } = await setup(['unavailable', 'unavailable', 'unavailable', 'unavailable']);
    const done = await run();
    expect(done).toMatchObject({ status: 'expired', error: { code: 'ATTEMPTS_EXHAUSTED' } });
    expect(ledger.submissionIds).toHaveLength(4);
    const found = await setup(['timeout', 'timeout', 'timeout', 'commitThenTimeout']);
    expect((await found.run())?.status).toBe('committed');
  });

  it('never expires an unknown outcome while it can still commit, and finds a commit that lands late', async () => {
    const { run, ledger, store, rec } = await setup(['unavailable', 'timeout', 'unavailable', 'timeout']);
    expect(await run()).toBeUndefined(); // waiting, not expired
    const open = await store.getRecord(rec.id);
    expect(open).toMatchObject({ status: 'executing', error: { code: 'OUTCOME_UNKNOWN' } });
    expect(open?.reconciledThroughOffset).toBe(0);
    // Some unrelated updates, then the lost attempt commits after attempts ran out.
    ledger.log.push({
      updateId: 'other-1',
      offset: 1,
      commandId: 'x',
      externalTransactionHash: 'ff',
      ...TX_FIELDS,
    });
    const again = await executeStep({ store, ledger, config }, rec.id);
    expect(again.kind).toBe('wait-until');
    expect((await store.getRecord(rec.id))?.reconciledThroughOffset).toBe(1); // searched incrementally
    const late = {
      updateId: 'late',
      offset: 2,
      commandId: rec.commandId,
      externalTransactionHash: rec.preparedTransactionHash,
      ...TX_FIELDS,
    };
    ledger.log.push(late);
    const done = await executeStep({ store, ledger, config }, rec.id);
    expect(done).toMatchObject({
      kind: 'done',
      record: { status: 'committed', updateId: 'late', error: null },
    });
    expect(ledger.submissionIds).toHaveLength(4); // nothing was sent again
  });

  it('expires an unknown outcome only once its commit deadline and the grace after it have passed', async () => {
    const deadline = Date.now() + 600_000;
    const { run, ledger, store, rec } = await setup(['timeout', 'timeout', 'timeout', 'timeout'], {
      canCommitUntil: new Date(deadline).toISOString(),
    });
    expect(await run()).toBeUndefined();
    const at = (ms: number) => ({ store, ledger, config, now: () => ms });
    const waiting = await executeStep(at(deadline + 30_000), rec.id);
    // looks again after maxDelayMs, or at the end of the grace, whichever comes first
    expect(waiting).toEqual({ kind: 'wait-until', at: deadline + 30_000 + config.maxDelayMs });
    const last = await executeStep(at(deadline + config.settleGraceMs - 2), rec.id);
    expect(last).toEqual({ kind: 'wait-until', at: deadline + config.settleGraceMs + 1 });
    expect((await store.getRecord(rec.id))?.status).toBe('executing');
    const done = await executeStep(at(deadline + config.settleGraceMs + 1_000), rec.id);
    expect(done).toMatchObject({
      kind: 'done',
      record: { status: 'expired', error: { code: 'PREPARATION_TIME_TOLERANCE_PASSED' } },
    });
    expect(ledger.submissionIds).toHaveLength(4);
  });

  it('does not submit again once the deadline passed, even with attempts left', async () => {
    const deadline = Date.now() + 600_000;
    const { store, ledger, rec } = await setup(['timeout'], {
      canCommitUntil: new Date(deadline).toISOString(),
    });
    expect((await executeStep({ store, ledger, config }, rec.id)).kind).toBe('retry');
    const late = await executeStep({ store, ledger, config, now: () => deadline + 1 }, rec.id);
    expect(late.kind).toBe('wait-until');
    expect(ledger.submissionIds).toHaveLength(1);
  });

  it('expires once max record time passed, and never runs a terminal record again', async () => {
    const { run, ledger, store, rec } = await setup([], {
      maxRecordTime: new Date(Date.now() - 10_000).toISOString(),
    });
    expect(await run()).toMatchObject({ status: 'expired', error: { code: 'MAX_RECORD_TIME_PASSED' } });
    expect(ledger.submissionIds).toHaveLength(0);
    const again = await executeStep({ store, ledger, config }, rec.id);
    expect(again).toMatchObject({ kind: 'done', alreadyFinal: true, record: { status: 'expired' } });
    expect(ledger.submissionIds).toHaveLength(0);
  });

  it('sends nothing more once the key is disabled: rejected if nothing can commit, else watched', async () => {
    const fresh = await setup(['commit']);
    await fresh.store.keyFlags.markDisabled(fresh.rec.keyFingerprint);
    expect(await fresh.run()).toMatchObject({ status: 'rejected', error: { code: 'KEY_DISABLED' } });
    expect(fresh.ledger.submissionIds).toHaveLength(0);

    const sent = await setup(['timeout', 'commit']);
    expect((await executeStep({ store: sent.store, ledger: sent.ledger, config }, sent.rec.id)).kind).toBe(
      'retry',
    );
    await sent.store.keyFlags.markDisabled(sent.rec.keyFingerprint);
    expect((await executeStep({ store: sent.store, ledger: sent.ledger, config }, sent.rec.id)).kind).toBe(
      'wait-until',
    );
    expect(sent.ledger.submissionIds).toHaveLength(1);
    expect((await sent.store.getRecord(sent.rec.id))?.error?.code).toBe('OUTCOME_UNKNOWN');
  });

  it('reads the key the job names beside the record, and trusts it only when the record names that key', async () => {
    const step = (t: Awaited<ReturnType<typeof setup>>, keyFingerprint: string) =>
      executeStep({ store: t.store, ledger: t.ledger, config }, t.rec.id, undefined, { keyFingerprint });
    const rejected = { kind: 'done', record: { status: 'rejected', error: { code: 'KEY_DISABLED' } } };
    // The job names another key than the record (stale, or forged): the record's own key decides.
    const stale = await setup(['commit']);
    await stale.store.keyFlags.markDisabled(stale.rec.keyFingerprint);
    expect(await step(stale, 'another-key')).toMatchObject(rejected);
    const other = await setup(['commit']);
    await other.store.keyFlags.markDisabled('another-key');
    expect(await step(other, 'another-key')).toMatchObject({ kind: 'done', record: { status: 'committed' } });
    // The job names the record's key: its flag, read beside the record, decides.
    const off = await setup(['commit']);
    await off.store.keyFlags.markDisabled(off.rec.keyFingerprint);
    expect(await step(off, off.rec.keyFingerprint)).toMatchObject(rejected);
    const on = await setup(['commit']);
    expect(await step(on, on.rec.keyFingerprint)).toMatchObject({
      kind: 'done',
      record: { status: 'committed' },
    });
    for (const t of [stale, off]) expect(t.ledger.submissionIds).toHaveLength(0);
  });

  it('is safe when two workers run the same step at once: one commit, one committed record', async () => {
    const { store, ledger, rec } = await setup(['commit', 'commit', 'commit', 'commit']);
    await Promise.all([1, 2, 3].map(() => executeStep({ store, ledger, config }, rec.id)));
    for (let i = 0; i < 5; i++) await executeStep({ store, ledger, config }, rec.id);
    const done = await store.getRecord(rec.id);
    expect(done?.status).toBe('committed');
    expect(ledger.commits.get(rec.commandId)).toBe(1);
  });
});
