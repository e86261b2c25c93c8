// The BullMQ side: one queue per ledger, jobId derived from the command id, the worker and stranded-work recovery.
import { context } from '@opentelemetry/api';
import { DelayedError, type Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { type Log, noLog } from '../log.ts';
import { StoreError } from '../redis/index.ts';
import { type ExecutorDeps, executeStep, recentLedgerEnd, type StepResult } from './executor.ts';
import type { SubmissionRecord } from './record.ts';
import type { SubmissionStore } from './store/index.ts';
import { contextFrom, currentTraceContext, type TraceContext } from './tracing.ts';
import { queue as queueTransition } from './transitions.ts';

export interface JobData {
  id: string;
  /**
   * The trace context active when the job was added (the accept span, or an approver's request), continued by
   * the worker; absent with tracing off. Metadata only: nothing hashed, signed or stored on the record.
   */
  traceContext?: TraceContext;
  /**
   * The key the record names (absent for a signature round, and in jobs added before it was carried): the worker
   * reads its disabled flag beside the record instead of after it (`executeStep`).
   */
  keyFingerprint?: string;
}

/** BullMQ forbids ':' in custom ids and purely numeric ids: encode the command id. */
export function jobIdFor(record: Pick<SubmissionRecord, 'commandId' | 'id'>): string {
  return `c-${Buffer.from(record.commandId).toString('base64url')}-${record.id.slice(4)}`;
}

/** Failed jobs (a step that threw 1,000 times) are kept a week for inspection, at most 200,000. */
const KEEP_FAILED = { age: 7 * 86_400, count: 200_000 };
/**
 * A completed job is removed at once: the record holds the outcome, and a job added again for it (the recovery
 * sweep) finds it final and does nothing. Keeping them cost Redis memory per submission and work per completion.
 */
const KEEP_COMPLETED = { count: 0 };

/**
 * The backoff of a step that threw (Redis away, a write not replicated in time): doubling from 500 ms with jitter,
 * capped at 5 s. BullMQ's own exponential backoff has no cap: a failover that failed a step eight times parked its
 * job for 64 s, and the recovery sweep does not touch delayed jobs.
 */
const STEP_BACKOFF = 'capped-exponential';
const STEP_BACKOFF_MAX_MS = 5000;
export function stepBackoffMs(attemptsMade: number, random: () => number = Math.random): number {
  const ceiling = Math.min(STEP_BACKOFF_MAX_MS, 500 * 2 ** Math.min(Math.max(attemptsMade - 1, 0), 16));
  return Math.round(ceiling * (0.5 + random() / 2));
}

export function createQueue(connection: Redis, name: string, prefix: string): Queue<JobData> {
  const queue = new Queue<JobData>(name, {
    connection,
    prefix: `${prefix.replace(/:$/, '')}:bull`,
    defaultJobOptions: {
      attempts: 1000,
      backoff: { type: STEP_BACKOFF, delay: 500 },
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: KEEP_FAILED,
    },
  });
  queue.on('error', () => {}); // connection errors: ioredis reconnects, callers see their own failures
  return queue;
}

export async function enqueue(queue: Queue<JobData>, record: SubmissionRecord): Promise<void> {
  try {
    const traceContext = currentTraceContext();
    await queue.add(
      'submit',
      {
        id: record.id,
        ...(traceContext ? { traceContext } : {}),
        ...(record.signatureRound ? {} : { keyFingerprint: record.keyFingerprint }),
      },
      { jobId: jobIdFor(record) },
    );
  } catch (err) {
    // The queue lives in Redis: to callers this is the same failure as the store's.
    throw new StoreError('UNAVAILABLE', 'could not enqueue the submission', { cause: err });
  }
}

/**
 * Puts back into the queue every non-terminal record whose job is missing or finished (API crash between
 * store and enqueue, a Redis that lost its last writes, a job failed by BullMQ): the record is the truth.
 */
export async function requeueStranded(
  store: SubmissionStore,
  queue: Queue<JobData>,
  olderThanMs: number,
  limit = 500,
): Promise<number> {
  let n = 0;
  for (const status of ['accepted', 'queued', 'executing'] as const) {
    for (const id of await store.idsInStatus(status, limit)) {
      const rec = await store.getRecord(id);
      if (!rec || Date.now() - Date.parse(rec.updatedAt) < olderThanMs) continue;
      const jobId = jobIdFor(rec);
      const job = await queue.getJob(jobId);
      const state = job ? await job.getState() : 'missing';
      if (state === 'failed' && job) {
        await job.retry('failed');
        n++;
      } else if (state === 'completed' && job) {
        await job.remove();
        await enqueue(queue, rec);
        n++;
      } else if (state === 'missing' || state === 'unknown') {
        await enqueue(queue, rec);
        n++;
      }
      if (status === 'accepted') await store.update(id, queueTransition);
    }
  }
  return n;
}

export interface WorkerOptions {
  connection: Redis;
  queueName: string;
  prefix: string;
  concurrency: number;
  rateLimit: { max: number; durationMs: number };
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Each step's outcome, lost locks and worker errors. */
  log?: Log;
  /** Where the worker's own errors (its Redis connection failing) go instead of one warning each. */
  onError?: (err: Error) => void;
}

/** What an operator follows a submission by: every step's outcome, with ids, codes and no payloads. */
function logStep(log: Log, id: string, step: StepResult): void {
  if (step.kind === 'retry') {
    log('warn', 'attempt failed, retrying', { submission: id, reason: step.reason, delayMs: step.delayMs });
    return;
  }
  if (step.kind === 'wait-until') {
    const nextLookAt = new Date(step.at).toISOString();
    log('warn', 'outcome unknown, searching the ledger', { submission: id, nextLookAt });
    return;
  }
  const r = step.record;
  if (!r) {
    log('warn', 'no record for this job', { submission: id });
    return;
  }
  const about = { submission: r.id, commandId: r.commandId, party: r.party, attempts: r.attempts.length };
  // A job run again over a final record must not read as a second commit.
  if (step.alreadyFinal) log('debug', `already ${r.status}`, about);
  else if (r.status === 'committed') {
    log('info', 'committed', { ...about, updateId: r.updateId, completionOffset: r.completionOffset });
  } else log('warn', r.status, { ...about, code: r.error?.code, error: r.error?.message });
}

/** Starts a worker whose jobs run `executeStep` until the record is final. */
export function startWorker(deps: ExecutorDeps, opts: WorkerOptions): Worker<JobData> {
  const lockDuration = opts.lockDurationMs ?? Math.max(30_000, deps.config.ledgerTimeoutMs * 2 + 5_000);
  const stepDeps: ExecutorDeps = { ledgerEnd: recentLedgerEnd(deps.ledger), ...deps };
  const log = opts.log ?? noLog;
  const worker = new Worker<JobData>(
    opts.queueName,
    async (job: Job<JobData>, token?: string, signal?: AbortSignal) => {
      // Each step continues the trace the job was added in (a new one when it carries none and tracing is on).
      const step = await context.with(contextFrom(job.data.traceContext), () =>
        executeStep(stepDeps, job.data.id, signal, job.data),
      );
      logStep(log, job.data.id, step);
      if (step.kind === 'done') return step.record?.status ?? 'missing';
      const at = step.kind === 'retry' ? Date.now() + step.delayMs : step.at;
      if (signal?.aborted) throw new Error('lock lost');
      await job.moveToDelayed(at, token);
      throw new DelayedError();
    },
    {
      connection: opts.connection,
      prefix: `${opts.prefix.replace(/:$/, '')}:bull`,
      concurrency: opts.concurrency,
      limiter: { max: opts.rateLimit.max, duration: opts.rateLimit.durationMs },
      lockDuration,
      // Looking often is cheap (one script over the active list); a job orphaned by a failover waits for its lock to
      // expire, then at most this long.
      stalledInterval: opts.stalledIntervalMs ?? Math.min(5_000, lockDuration),
      maxStalledCount: 1_000_000,
      settings: { backoffStrategy: (attemptsMade: number) => stepBackoffMs(attemptsMade) },
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: KEEP_FAILED,
    },
  );
  // Losing the lock does not abort the processor by itself; cancel so it stops before any side effect.
  worker.on('lockRenewalFailed', (ids) => {
    log('warn', 'lost the lock on jobs: stopping them, they will run again', { jobs: ids });
    for (const id of ids) worker.cancelJob(id, 'lock-lost');
  });
  // A step that threw (Redis away, lock lost): BullMQ runs it again after its backoff.
  worker.on('failed', (job, err) => {
    if (err.name === 'DelayedError') return;
    log('warn', 'step failed, will run again', { submission: job?.data.id, error: err.message });
  });
  worker.on('error', opts.onError ?? ((err) => log('warn', `worker: ${err.message}`)));
  return worker;
}

/** Closes a worker, waiting for active jobs up to `timeoutMs`, then forcing (they will stall and rerun). */
export async function closeWorker(worker: Worker, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => r('timeout'), timeoutMs);
  });
  const res = await Promise.race([worker.close().then(() => 'closed' as const), timeout]);
  clearTimeout(timer);
  if (res === 'timeout') await worker.close(true);
}
