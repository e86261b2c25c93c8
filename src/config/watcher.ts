// The ledger watcher (worker role): party history index and `transaction.received` / `ledger.gap` events.
import { z } from 'zod';
import { intIn } from './env.ts';
import { section } from './section.ts';

export const watcher = section({
  summary: 'The ledger watcher (worker role; see docs/events.md).',
  vars: {
    WATCHER_ENABLED: z
      .enum(['true', 'false'])
      .default('true')
      .describe('run the ledger watcher in the worker role (`true`/`false`)'),
    WATCHER_PAGE_SIZE: intIn(1, 200, 200).describe(
      'updates asked for per `POST /v2/updates/flats` read (`limit`, 1–200)',
    ),
    WATCHER_IDLE_TIMEOUT_MS: intIn(10, 600_000, 5_000).describe(
      'how long a read waits for new updates once caught up (`stream_idle_timeout_ms`), at most 10 s so every ' +
        "read ends well inside the JSON server's 20 s request timeout; ranges up to the ledger end are read bounded",
    ),
    WATCHER_LEASE_MS: intIn(300, 600_000, 10_000).describe(
      "lifetime of the watcher's Redis lease; another worker takes over this long after the holder dies",
    ),
  },
  outputs: { watcher: true },
  build: (e) => ({
    watcher: {
      enabled: e.WATCHER_ENABLED === 'true',
      pageSize: e.WATCHER_PAGE_SIZE,
      idleTimeoutMs: e.WATCHER_IDLE_TIMEOUT_MS,
      leaseMs: e.WATCHER_LEASE_MS,
    },
  }),
});
