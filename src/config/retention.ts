// How long a final submission keeps its payload: the worker's leader sweep drops it after that.
import { intIn } from './env.ts';
import { section } from './section.ts';

export const retention = section({
  summary: "How long a final submission keeps its prepared transaction and signatures (the worker's sweep).",
  vars: {
    PAYLOAD_RETENTION_HOURS: intIn(0, 24 * 3650, 168).describe(
      'how long after a submission becomes final its prepared transaction and signatures stay in Redis ' +
        "(the worker's sweep drops them; the record, its hash, attempts and audit entry stay, and `GET` " +
        'answers as before); `0` = at the next sweep',
    ),
  },
  outputs: { payloadRetentionMs: true },
  build: (e) => ({
    /** A final record's prepared transaction and signatures are dropped this long after it became final. */
    payloadRetentionMs: e.PAYLOAD_RETENTION_HOURS * 3_600_000,
  }),
});
