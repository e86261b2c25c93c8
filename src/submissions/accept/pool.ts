// Decoding and hashing a multi-megabyte prepared transaction takes the CPU for hundreds of milliseconds: done on
// the request thread, it stalls every probe and small submission behind it (issue 12, finding 1). Transactions
// above a size go to a small pool of worker threads instead; small ones stay inline, where they are faster.
import { Worker } from 'node:worker_threads';
import { TransactionError, type TransactionErrorCode } from '@quill/canton/transaction';
import type { Log } from '../../log.ts';
import type { HoldingRecognizer } from '../../policy/index.ts';
import { SubmissionRefused } from '../errors.ts';
import type { HashingSchemeVersion } from '../record.ts';
import type { InspectedTransaction } from './types.ts';

export interface InspectRequest {
  id: number;
  b64: string;
  scheme: HashingSchemeVersion;
}

export type InspectResponse =
  | {
      id: number;
      result: Omit<InspectedTransaction, 'facts'>;
      /** The policy's facts, computed on the inspection thread (or why they could not be). */
      facts: { data?: unknown; error?: string };
    }
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
  resolve: (r: InspectedTransaction) => void;
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
  /** Inspections this pool answered (with a result or an error), for the `quill_inspect_offloaded_total` metric. */
  answered = 0;

  constructor(opts: InspectPoolOptions) {
    if (opts.threads < 1) throw new Error('an inspection pool needs at least one thread');
    this.#opts = opts;
  }

  /** Inspections sent and not yet answered. */
  get pending(): number {
    return this.#threads.reduce((n, t) => n + t.tasks.length, 0);
  }

  inspect(b64: string, scheme: HashingSchemeVersion): Promise<InspectedTransaction> {
    if (this.#closed) return Promise.reject(new SubmissionRefused(503, 'UNAVAILABLE', 'shutting down'));
    if (this.pending >= this.#opts.maxQueued) {
      return Promise.reject(
        new SubmissionRefused(
          503,
          'UNAVAILABLE',
          `${this.#opts.maxQueued} large prepared transactions are already being checked; retry shortly`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      this.#send({ req: { id: this.#nextId++, b64, scheme }, resolve, reject });
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
      this.answered++;
      if ('result' in res) {
        const { data, error } = res.facts;
        task.resolve({
          ...res.result,
          facts: () => {
            if (error !== undefined) throw new Error(error);
            return data as ReturnType<NonNullable<InspectedTransaction['facts']>>;
          },
        });
      } else task.reject(new TransactionError(res.error.code as TransactionErrorCode, res.error.message));
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
