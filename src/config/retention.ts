// How long what grows with submissions stays in Redis: payloads, records with their indexes, webhook delivery
// states and the watcher's history (issue 32). The worker's leader sweep enforces them; windows are decimal hours
// so a soak run can use minutes (`0.05` = 3 minutes).
import { z } from 'zod';
import { section } from './section.ts';

/** A window in hours, decimals allowed (integers read as before). */
export const hoursIn = (min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: `must be a number of hours between ${min} and ${max}` })
    .refine(Number.isFinite, { error: `must be a number of hours between ${min} and ${max}` })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` })
    .default(fallback);

const HOUR = 3_600_000;
const YEARS_10 = 24 * 3650;

export const retention = section({
  summary:
    "How long what grows with submissions stays in Redis: payloads, records, webhook deliveries, history (the worker's sweep; see docs/operations.md).",
  vars: {
    PAYLOAD_RETENTION_HOURS: hoursIn(0, YEARS_10, 168).describe(
      'how long after a submission becomes final its prepared transaction and signatures stay in Redis ' +
        "(the worker's sweep drops them; the record, its hash, attempts and audit entry stay, and `GET` " +
        'answers as before); `0` = at the next sweep; decimals allowed',
    ),
    RECORD_RETENTION_HOURS: hoursIn(0, YEARS_10, 2160).describe(
      'how long after a submission becomes final its record, index entries and Idempotency-Key stay in Redis; ' +
        'then `GET` answers 404 as for an unknown id and listings omit it (the audit chain keeps its entries); ' +
        '`0` = forever; decimals allowed',
    ),
    WEBHOOK_RETENTION_HOURS: hoursIn(0, YEARS_10, 168).describe(
      'how long a delivered or dead-lettered webhook delivery (its state, attempts and dead letter) stays ' +
        'listed; `0` = forever; decimals allowed',
    ),
    HISTORY_RETENTION_HOURS: hoursIn(0, YEARS_10, 2160).describe(
      "how long the ledger watcher's per-transaction party history stays (by record time; holdings and " +
        'pending instructions are live state and stay); `0` = forever; decimals allowed',
    ),
  },
  outputs: { payloadRetentionMs: true, retention: true },
  build: (e) => ({
    /** A final record's prepared transaction and signatures are dropped this long after it became final. */
    payloadRetentionMs: Math.round(e.PAYLOAD_RETENTION_HOURS * HOUR),
    /** Windows of the rest (0 = kept forever). */
    retention: {
      recordsMs: Math.round(e.RECORD_RETENTION_HOURS * HOUR),
      webhooksMs: Math.round(e.WEBHOOK_RETENTION_HOURS * HOUR),
      historyMs: Math.round(e.HISTORY_RETENTION_HOURS * HOUR),
    },
  }),
});
