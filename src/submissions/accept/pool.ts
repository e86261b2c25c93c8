// Decoding and hashing a multi-megabyte prepared transaction takes the CPU for hundreds of milliseconds: done on
// the request thread, it stalls every probe and small submission behind it (issue 12, finding 1). Large inputs go
// to a small pool of worker threads instead: prepared transactions to inspect at accept, stored ones to preview,
// and request bodies to parse (issue 29 item 10). Small ones stay inline, where they are faster; reader.ts decides.
import { Worker } from 'node:worker_threads';
import { TransactionError, type TransactionErrorCode } from '@quill/canton/transaction';
import type { Log } from '../../log.ts';
import type { HoldingRecognizer } from '../../policy/index.ts';
import { SubmissionRefused } from '../errors.ts';
import type { HashingSchemeVersion } from '../record.ts';
import type { ParsedBody, StoredPreview } from './inspect.ts';
import type { InspectedTransaction } from './types.ts';

/** One task for a thread: what to do, and with what. */
export type PoolTask =
  | { kind: 'inspect'; b64: string; scheme: HashingSchemeVersion }
  | { kind: 'preview'; b64: string; scheme: HashingSchemeVersion }
  | { kind: 'json'; bytes: Uint8Array };

export type InspectRequest = PoolTask & { id: number };

/** What a thread answers for each kind of task. */
export interface PoolAnswers {
  inspect: {
    result: Omit<InspectedTransaction, 'facts'>;
    /** The policy's facts, computed on the inspection thread (or why they could not be). */
    facts: { data?: unknown; error?: string };
  };
  preview: StoredPreview;
  json: ParsedBody;
}

export type InspectResponse =
  | { id: number; value: PoolAnswers[PoolTask['kind']] }
  | { id: number; error: { code: string; message: string } };

export interface InspectPoolOptions {
  threads: number;
  /** Inspections waiting or running at once; one more is refused with 503 (the caller retries). */
  maxQueued: number;
  /** Heap limit of each thread: a transaction that needs more is refused with 413 and the thread replaced. */
  threadMemoryMb: number;
  /** What counts as a transfer for the policy's facts, as inline inspection uses it. */
  holdings: readonly HoldingRecognizer[];
  log?: Log;
}

interface Task {
  req: InspectRequest;
  resolve: (r: never) => void;
  reject: (e: unknown) => void;
}

interface Thread {
  worker: Worker;
  /** In the order sent; a thread answers in order, so the head is the one running. */
  tasks: Task[];
  failure?: Error;
}

const BOOT = new URL('./boot.mjs', import.meta.url);

export class InspectPool {
  readonly #threads: Thread[] = [];
  readonly #opts: InspectPoolOptions;
  #nextId = 1;
  #closed = false;
  /**
   * Transactions this pool inspected or previewed (with a result or an error; bodies parsed are not counted), for
   * the `quill_inspect_offloaded_total` metric.
   */
  answered = 0;

  constructor(opts: InspectPoolOptions) {
    if (opts.threads < 1) throw new Error('an inspection pool needs at least one thread');
    this.#opts = opts;
  }

  /** Inspections sent and not yet answered. */
  get pending(): number {
    return this.#threads.reduce((n, t) => n + t.tasks.length, 0);
  }

  async inspect(b64: string, scheme: HashingSchemeVersion): Promise<InspectedTransaction> {
    const { result, facts } = await this.#run({ kind: 'inspect', b64, scheme });
    return {
      ...result,
      facts: () => {
        if (facts.error !== undefined) throw new Error(facts.error);
        return facts.data as ReturnType<NonNullable<InspectedTransaction['facts']>>;
      },
    };
  }

  /** A stored transaction's preview, serialized on the thread (inspect.ts `previewStored`). */
  preview(b64: string, scheme: HashingSchemeVersion): Promise<StoredPreview> {
    return this.#run({ kind: 'preview', b64, scheme });
  }

  /** A request body decoded, depth-checked and parsed on the thread (inspect.ts `parseBody`). */
  parseJson(bytes: Uint8Array): Promise<ParsedBody> {
    return this.#run({ kind: 'json', bytes });
  }

  #run<K extends PoolTask['kind']>(task: PoolTask & { kind: K }): Promise<PoolAnswers[K]> {
    if (this.#closed) return Promise.reject(new SubmissionRefused(503, 'UNAVAILABLE', 'shutting down'));
    if (this.pending >= this.#opts.maxQueued) {
      return Promise.reject(
        new SubmissionRefused(
          503,
          'UNAVAILABLE',
          `${this.#opts.maxQueued} large inputs are already being checked; retry shortly`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      this.#send({ req: { ...task, id: this.#nextId++ }, resolve: resolve as (r: never) => void, reject });
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const threads = this.#threads.splice(0);
    for (const t of threads) {
      for (const task of t.tasks.splice(0))
        task.reject(new SubmissionRefused(503, 'UNAVAILABLE', 'shutting down'));
    }
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  #send(task: Task): void {
    // The least busy thread; threads start when first needed (most wallets never see a large transaction).
    let best = this.#threads[0];
    for (const t of this.#threads) if (best && t.tasks.length < best.tasks.length) best = t;
    if (!best || (best.tasks.length > 0 && this.#threads.length < this.#opts.threads)) {
      best = this.#spawn();
      this.#threads.push(best);
    }
    best.tasks.push(task);
    best.worker.postMessage(task.req);
  }

  #spawn(): Thread {
    const worker = new Worker(BOOT, {
      resourceLimits: { maxOldGenerationSizeMb: this.#opts.threadMemoryMb },
      workerData: { holdings: this.#opts.holdings },
    });
    worker.unref();
    const thread: Thread = { worker, tasks: [] };
    worker.on('message', (res: InspectResponse) => {
      const i = thread.tasks.findIndex((t) => t.req.id === res.id);
      if (i < 0) return;
      const [task] = thread.tasks.splice(i, 1) as [Task];
      if (task.req.kind !== 'json') this.answered++;
      if ('value' in res) task.resolve(res.value as never);
      else task.reject(new TransactionError(res.error.code as TransactionErrorCode, res.error.message));
    });
    worker.on('error', (err) => {
      thread.failure = err;
    });
    worker.on('exit', () => this.#replace(thread));
    return thread;
  }

  /** A thread died (out of memory, or a bug): the task it was running fails, the rest go to its successor. */
  #replace(dead: Thread): void {
    const at = this.#threads.indexOf(dead);
    if (at < 0 || this.#closed) return;
    const [running, ...waiting] = dead.tasks.splice(0);
    const oom = (dead.failure as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
    this.#opts.log?.('warn', 'inspection thread stopped', {
      reason: oom ? 'out of memory' : (dead.failure?.message ?? 'exited'),
      requeued: waiting.length,
    });
    this.#threads[at] = this.#spawn();
    running?.reject(
      oom
        ? new SubmissionRefused(
            413,
            'TOO_LARGE',
            `preparedTransaction: decoding it needs more than the ${this.#opts.threadMemoryMb} MB an inspection thread may use`,
          )
        : new SubmissionRefused(503, 'UNAVAILABLE', 'the inspection thread stopped; retry'),
    );
    for (const task of waiting) this.#send(task);
  }
}
