// Events, the live stream and webhooks (issue 14 part B): retention, heartbeat, delivery and its retries.
import { z } from 'zod';
import { intIn } from './env.ts';
import { hoursIn } from './retention.ts';
import { section } from './section.ts';

export const events = section({
  summary: 'The event stream and webhooks: retention, heartbeat, delivery (see docs/events.md).',
  vars: {
    EVENTS_RETENTION_HOURS: hoursIn(0, 24 * 3650, 168).describe(
      'events older than this many hours are trimmed; `0` = no age limit; decimals allowed',
    ),
    EVENTS_RETENTION_MAX: intIn(0, 1_000_000_000, 1_000_000).describe(
      'at most this many events are kept; `0` = no count limit',
    ),
    EVENTS_HEARTBEAT_SECONDS: intIn(1, 3600, 15).describe('SSE heartbeat interval'),
    EVENTS_MAX_STREAMS_PER_TOKEN: intIn(1, 100_000, 20).describe(
      'SSE streams one token (subject and party) may hold open at once, per API process; more are 429 `TOO_MANY_STREAMS`',
    ),
    EVENTS_MAX_STREAMS: intIn(1, 1_000_000, 500).describe(
      'SSE streams one API process holds open at once (each holds a Redis connection); more are 429 `TOO_MANY_STREAMS`',
    ),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: z
      .enum(['true', 'false', 'loopback'])
      .default('false')
      .describe(
        '`true` allows webhook URLs on loopback/private networks; `loopback` allows loopback ones only (`quill serve --demo` sets it unless given)',
      ),
    WEBHOOK_TIMEOUT_MS: intIn(100, 120_000, 10_000).describe('per-request timeout of a webhook delivery'),
    WEBHOOK_RETRY_BASE_MS: intIn(1, 3_600_000, 1000).describe('first delay of the webhook backoff'),
    WEBHOOK_RETRY_MAX_DELAY_MS: intIn(1, 86_400_000, 3_600_000).describe(
      'largest delay of the webhook backoff',
    ),
    WEBHOOK_RETRY_FOR_SECONDS: intIn(1, 30 * 86_400, 86_400).describe(
      'how long a webhook delivery is retried before it is dead-lettered',
    ),
    WEBHOOK_SECRET_GRACE_SECONDS: intIn(0, 30 * 86_400, 86_400).describe(
      'how long the previous secret still signs after a rotation',
    ),
    WEBHOOK_CONCURRENCY: intIn(1, 1000, 16).describe('webhook chains delivered at once per worker'),
  },
  outputs: { events: true, eventStreams: true, webhooks: true },
  build: (e, problem) => {
    if (e.WEBHOOK_RETRY_BASE_MS > e.WEBHOOK_RETRY_MAX_DELAY_MS)
      problem('WEBHOOK_RETRY_BASE_MS must not exceed WEBHOOK_RETRY_MAX_DELAY_MS');
    return {
      events: {
        /** Events older than this are trimmed (0 = no age limit). */
        retentionMs: Math.round(e.EVENTS_RETENTION_HOURS * 3_600_000),
        /** At most this many events are kept (0 = no count limit). */
        retentionMax: e.EVENTS_RETENTION_MAX,
        heartbeatMs: e.EVENTS_HEARTBEAT_SECONDS * 1000,
      },
      /** Open SSE streams per token and in all, counted per API process. */
      eventStreams: { maxPerToken: e.EVENTS_MAX_STREAMS_PER_TOKEN, max: e.EVENTS_MAX_STREAMS },
      webhooks: {
        allowPrivateTargets:
          e.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'loopback'
            ? ('loopback' as const)
            : e.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
        timeoutMs: e.WEBHOOK_TIMEOUT_MS,
        retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
        retryMaxDelayMs: e.WEBHOOK_RETRY_MAX_DELAY_MS,
        retryForMs: e.WEBHOOK_RETRY_FOR_SECONDS * 1000,
        secretGraceMs: e.WEBHOOK_SECRET_GRACE_SECONDS * 1000,
        concurrency: e.WEBHOOK_CONCURRENCY,
      },
    };
  },
});
