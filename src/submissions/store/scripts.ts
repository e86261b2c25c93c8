// The store's Lua scripts (src/redis/lua), with the record's facts generated from TypeScript so Lua and
// TypeScript never disagree: which status is final, announced or ranked above which, and the schema version a
// record is written in.
import { loadScript } from '../../redis/scripts.ts';
import { STATUS_TABLE, SUBMISSION_STATUSES } from '../record.ts';
import { RECORD_SCHEMA_VERSION } from './stored.ts';

const table = (pick: (s: (typeof SUBMISSION_STATUSES)[number]) => string | undefined) =>
  SUBMISSION_STATUSES.flatMap((s) => {
    const v = pick(s);
    return v === undefined ? [] : [`${s} = ${v}`];
  }).join(', ');

/**
 * `RANK[status]`, `FINAL[status]` / `ANNOUNCE[status]` true for final / announced statuses, and `RECORD_SCHEMA`
 * (written beside every record the scripts write).
 */
const RECORD = [
  `local RANK = { ${table((s) => String(STATUS_TABLE[s].rank))} }`,
  `local FINAL = { ${table((s) => (STATUS_TABLE[s].final ? 'true' : undefined))} }`,
  `local ANNOUNCE = { ${table((s) => (STATUS_TABLE[s].announce ? 'true' : undefined))} }`,
  `local RECORD_SCHEMA = '${RECORD_SCHEMA_VERSION}'`,
  '',
].join('\n');

export const CREATE = loadScript('create', { record: RECORD });
export const TRANSITION = loadScript('transition', { record: RECORD });
export const SIGNATURES = loadScript('signatures', { record: RECORD });
export const DROP_PAYLOADS = loadScript('drop-payloads');
export const DROP_RECORDS = loadScript('drop-records', { record: RECORD });
export const OUTBOX_TRIM = loadScript('outbox-trim');
