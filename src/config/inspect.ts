// The inspection pool of the API role: worker threads that read large inputs (prepared transactions to inspect,
// stored ones to preview, request bodies) off the request thread. The default thread count depends on the
// machine, so the reference states it in words.
import { availableParallelism } from 'node:os';
import { intIn } from './env.ts';
import { section } from './section.ts';

export const inspect = section({
  summary:
    'The threads that read large inputs off the request thread: prepared transactions, previews, bodies (API role).',
  vars: {
    INSPECT_THREADS: intIn(0, 64, Math.max(1, Math.min(4, availableParallelism() - 1))).meta({
      description:
        'worker threads that decode and hash large prepared transactions off the request thread, so probes ' +
        'and small submissions keep their latency while huge ones are checked; `0` = everything inline',
      shownDefault: 'cores − 1, 1 to 4',
    }),
    INSPECT_OFFLOAD_BYTES: intIn(0, 24 * 1024 * 1024, 128 * 1024).describe(
      'a prepared transaction of at least this many base64 characters (accepted, approved, evaluated or ' +
        'previewed), or a request body of at least this many bytes, goes to those threads (smaller ones are ' +
        'faster inline)',
    ),
    INSPECT_QUEUE_MAX: intIn(1, 10_000, 32).describe(
      'large inputs waiting for or on those threads at once; one more is `503 UNAVAILABLE` (retry ' +
        'with the same `Idempotency-Key`)',
    ),
    INSPECT_THREAD_MEMORY_MB: intIn(64, 16_384, 1024).describe(
      'heap limit of each of those threads; a transaction that needs more is `413 TOO_LARGE` and the ' +
        'thread is replaced',
    ),
  },
  outputs: { inspect: true },
  build: (e) => ({
    /** Transactions of `offloadBytes` base64 characters or more are inspected on `threads` (0 = inline). */
    inspect: {
      threads: e.INSPECT_THREADS,
      offloadBytes: e.INSPECT_OFFLOAD_BYTES,
      maxQueued: e.INSPECT_QUEUE_MAX,
      threadMemoryMb: e.INSPECT_THREAD_MEMORY_MB,
    },
  }),
});
