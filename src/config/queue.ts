// How the worker role runs submissions: the BullMQ queue, its rate limit, attempts and backoff, the job lock,
// and the leader-only recovery sweep.
import { z } from 'zod';
import { intIn } from './env.ts';
import { section } from './section.ts';

export const queue = section({
  summary:
    'How workers run submissions: the queue, its rate limit, attempts and backoff, job locks and the ' +
    'recovery sweep (worker role).',
  vars: {
    QUEUE_NAME: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,60}$/, { error: 'must be 1-60 letters, digits, _ . or -' })
      .default('submissions')
      .describe('BullMQ queue (one per ledger)'),
    WORKER_CONCURRENCY: intIn(1, 1000, 64).describe('executions in flight per worker process'),
    RATE_LIMIT_MAX: intIn(1, 1_000_000, 2000).describe(
      'executions started per `RATE_LIMIT_DURATION_MS` window, across all workers of the queue',
    ),
    RATE_LIMIT_DURATION_MS: intIn(1, 3_600_000, 1000).describe('the window of `RATE_LIMIT_MAX`'),
    SUBMIT_MAX_ATTEMPTS: intIn(1, 1000, 12).describe(
      "attempts per submission; when they are spent and one attempt's outcome is unknown, the ledger is " +
        'searched every `RETRY_MAX_DELAY_MS` until `canCommitUntil` + `SETTLE_GRACE_SECONDS` instead of ' +
        'expiring',
    ),
    WORKER_LOCK_DURATION_MS: intIn(0, 3_600_000, 0).describe(
      'job lock of an execution; `0` = derived from `LEDGER_TIMEOUT_MS`',
    ),
    WORKER_STALLED_INTERVAL_MS: intIn(0, 3_600_000, 0).describe(
      'how often stalled jobs (whose lock expired: a worker died, or a failover orphaned them) are looked for; ' +
        '`0` = 5 s, or the lock duration if shorter',
    ),
    SWEEP_INTERVAL_MS: intIn(100, 3_600_000, 10_000).describe(
      'interval of the recovery sweep of stranded records, which also expires signature rounds and approvals ' +
        'past their deadline',
    ),
    LEADER_LEASE_MS: intIn(500, 600_000, 5000).describe(
      'lifetime of the leader lease (`<prefix>leader` in Redis): only the worker holding it runs the ' +
        'recovery sweep and payload retention, and another worker takes over this long after the holder dies',
    ),
    RETRY_BASE_DELAY_MS: intIn(1, 600_000, 200).describe(
      'first delay of the exponential backoff (with jitter) between attempts',
    ),
    RETRY_MAX_DELAY_MS: intIn(1, 3_600_000, 30_000).describe('largest delay between attempts'),
  },
  outputs: { queue: true },
  build: (e, problem) => {
    if (e.RETRY_BASE_DELAY_MS > e.RETRY_MAX_DELAY_MS) {
      problem('RETRY_BASE_DELAY_MS must not exceed RETRY_MAX_DELAY_MS');
    }
    return {
      queue: {
        name: e.QUEUE_NAME,
        concurrency: e.WORKER_CONCURRENCY,
        rateLimit: { max: e.RATE_LIMIT_MAX, durationMs: e.RATE_LIMIT_DURATION_MS },
        maxAttempts: e.SUBMIT_MAX_ATTEMPTS,
        /** 0 = derived from LEDGER_TIMEOUT_MS. */
        lockDurationMs: e.WORKER_LOCK_DURATION_MS,
        stalledIntervalMs: e.WORKER_STALLED_INTERVAL_MS,
        sweepIntervalMs: e.SWEEP_INTERVAL_MS,
        /** Lease of once-per-deployment work (the sweep): taken over this long after its holder dies. */
        leaderLeaseMs: e.LEADER_LEASE_MS,
        baseDelayMs: e.RETRY_BASE_DELAY_MS,
        maxDelayMs: e.RETRY_MAX_DELAY_MS,
      },
    };
  },
});
