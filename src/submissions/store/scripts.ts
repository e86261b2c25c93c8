// The store's Lua scripts (src/redis/lua), with the status table generated from record.ts so Lua and TypeScript
// never disagree on which status is final, announced or ranked above which.
import { loadScript } from '../../redis/scripts.ts';
import { STATUS_TABLE, SUBMISSION_STATUSES } from '../record.ts';

const table = (pick: (s: (typeof SUBMISSION_STATUSES)[number]) => string | undefined) =>
  SUBMISSION_STATUSES.flatMap((s) => {
    const v = pick(s);
    return v === undefined ? [] : [`${s} = ${v}`];
  }).join(', ');

/** `RANK[status]`, and `FINAL[status]` / `ANNOUNCE[status]` true for final / announced statuses. */
const STATUS = [
  `local RANK = { ${table((s) => String(STATUS_TABLE[s].rank))} }`,
  `local FINAL = { ${table((s) => (STATUS_TABLE[s].final ? 'true' : undefined))} }`,
  `local ANNOUNCE = { ${table((s) => (STATUS_TABLE[s].announce ? 'true' : undefined))} }`,
  '',
].join('\n');

export const CREATE = loadScript('create', { status: STATUS });
export const TRANSITION = loadScript('transition', { status: STATUS });
export const DROP_PAYLOADS = loadScript('drop-payloads');
