// What one caller may ask of the API role at once: batch and body sizes, accepts per token, how long to wait.
import { intIn } from './env.ts';
import { section } from './section.ts';

export const apiLimits = section({
  summary: 'Limits on API requests: batch and transaction sizes, accepts per token, `?wait=` (API role).',
  vars: {
    BATCH_MAX: intIn(1, 10_000, 100).describe('items per batch request'),
    MAX_PREPARED_TRANSACTION_BYTES: intIn(1024, 24 * 1024 * 1024, 8 * 1024 * 1024).describe(
      'largest prepared transaction accepted (decoded bytes, 8 MiB by default; base64 holds 3 in 4 ' +
        'characters); over it `413 TOO_LARGE`',
    ),
    BATCH_MAX_BYTES: intIn(1024, 32 * 1024 * 1024, 32 * 1024 * 1024).describe(
      'largest batch request body (32 MiB by default); over it `413 BATCH_TOO_LARGE`',
    ),
    ACCEPT_RATE_LIMIT: intIn(0, 1_000_000, 1000).describe(
      'submissions one token (its subject and party together) may have accepted per window, across all API ' +
        'processes (counted in Redis; a batch counts each item); over it `429 RATE_LIMITED` with ' +
        '`Retry-After`, nothing signed; `0` = no limit',
    ),
    ACCEPT_RATE_WINDOW_SECONDS: intIn(1, 3600, 1).describe('the window of `ACCEPT_RATE_LIMIT`'),
    WAIT_MAX_SECONDS: intIn(0, 3600, 60).describe('cap of `?wait=`'),
  },
  outputs: { batchMax: true, limits: true, acceptRateLimit: true, waitMaxSeconds: true },
  build: (e) => ({
    batchMax: e.BATCH_MAX,
    limits: { preparedTransactionBytes: e.MAX_PREPARED_TRANSACTION_BYTES, batchBytes: e.BATCH_MAX_BYTES },
    /** Per token (subject and party); 0 = off. */
    acceptRateLimit: { max: e.ACCEPT_RATE_LIMIT, windowMs: e.ACCEPT_RATE_WINDOW_SECONDS * 1000 },
    waitMaxSeconds: e.WAIT_MAX_SECONDS,
  }),
});
