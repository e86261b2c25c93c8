// Reads the audit chain newest first, straight from its stream under the key registry (the API pages it oldest
// first only), with the API's rules: an admin only, and a party-scoped admin sees its party's entries. Entries
// without a `kind` are signatures. Each page scans a bounded number of entries and hands back a cursor.
import { allows, type Principal } from '../auth/index.ts';
import { redisKeys } from '../redis/index.ts';
import type { ChainEntry } from './csv.ts';
import type { ConsoleDeps } from './deps.ts';
import { PageError } from './errors.ts';

export interface AuditRow {
  id: string;
  kind: string;
  fields: Record<string, string>;
  entry: ChainEntry;
}

export interface AuditRead {
  /** 403: the viewer is not an admin (nothing was read). */
  status: 200 | 403;
  rows: AuditRow[];
  /** Where the next (older) page starts; null when the chain's first entry was read. */
  older: string | null;
  /** Where the newer page starts (its `after`); null on the newest page. */
  newer: string | null;
}

const CURSOR = /^\d{1,20}-\d{1,20}$/;

/** A page's `before` query parameter: absent, or a stream entry id (anything else is a 400 page). */
export function cursorParam(v: string | undefined): string | undefined {
  if (v === undefined || v === '') return undefined;
  if (!CURSOR.test(v)) throw new PageError(400, 'That page cursor is not an audit entry id.');
  return v;
}

/**
 * Up to `want` rows that `keep` selects, newest first, starting before `before` (or, for a newer page, the `want`
 * just after `after`) and scanning at most `scan` entries (a rare filter then shows fewer rows and an "older" link
 * rather than reading the whole chain).
 */
export async function readAudit(
  deps: ConsoleDeps,
  principal: Principal,
  opts: {
    before?: string | undefined;
    after?: string | undefined;
    want: number;
    scan?: number;
    keep?: (r: AuditRow) => boolean;
  },
): Promise<AuditRead> {
  if (!allows(principal.role, 'admin')) return { status: 403, rows: [], older: null, newer: null };
  const keep = (r: AuditRow) => visible(r, principal) && (opts.keep?.(r) ?? true);
  const scan = { want: opts.want, scan: opts.scan ?? 20_000, keep };
  if (opts.after !== undefined) {
    // The page just newer than `after`: read oldest first from it, then shown newest first.
    const read = await scanFrom(deps, opts.after, 'newer', scan);
    // Whether anything newer is left: one more entry past where the scan stopped.
    const end = read.end || (await entries(deps, read.cursor, 1, 'newer')).length === 0;
    const rows = read.rows.reverse();
    return {
      status: 200,
      rows,
      older: rows.at(-1)?.id ?? opts.after,
      newer: end ? null : (read.cursor ?? null),
    };
  }
  const read = await scanFrom(deps, opts.before, 'older', scan);
  return {
    status: 200,
    rows: read.rows,
    older: read.end ? null : (read.cursor ?? null),
    // A page that starts before an entry has newer ones: from its own newest row on.
    newer: opts.before !== undefined ? (read.rows[0]?.id ?? opts.before) : null,
  };
}

/**
 * Rows `keep` selects, going `way` from `from` (exclusive), until `want` are found or `scan` entries were read.
 * `cursor`: the last entry read; `end`: the stream ended before `want` were found.
 */
async function scanFrom(
  deps: ConsoleDeps,
  from: string | undefined,
  way: 'older' | 'newer',
  opts: { want: number; scan: number; keep: (r: AuditRow) => boolean },
): Promise<{ rows: AuditRow[]; cursor: string | undefined; end: boolean }> {
  const rows: AuditRow[] = [];
  let cursor = from;
  let scanned = 0;
  while (rows.length < opts.want && scanned < opts.scan) {
    const count = Math.min(1000, opts.scan - scanned);
    const page = await entries(deps, cursor, count, way);
    for (const e of page) {
      cursor = e.id;
      scanned++;
      const r = rowOf(e);
      if (opts.keep(r)) rows.push(r);
      if (rows.length === opts.want) break;
    }
    if (page.length < count && rows.length < opts.want) return { rows, cursor, end: true };
  }
  return { rows, cursor, end: false };
}

/** Every row `keep` selects, newest first, a page of the stream at a time (the CSV export). */
export async function* everyAuditRow(
  deps: ConsoleDeps,
  principal: Principal,
  keep: (r: AuditRow) => boolean,
): AsyncGenerator<AuditRow[]> {
  for (let cursor: string | undefined; ; ) {
    const page = await entries(deps, cursor, 1000, 'older');
    yield page.map(rowOf).filter((r) => visible(r, principal) && keep(r));
    if (page.length < 1000) return;
    cursor = page.at(-1)?.id;
  }
}

/**
 * `count` entries past `from` (exclusive; absent: from the newest), newest first going `older`, oldest first going
 * `newer`.
 */
async function entries(
  deps: ConsoleDeps,
  from: string | undefined,
  count: number,
  way: 'older' | 'newer',
): Promise<ChainEntry[]> {
  const key = redisKeys(deps.prefix).audit;
  const rows =
    way === 'older'
      ? await deps.redis.xrevrange(key, from ? `(${from}` : '+', '-', 'COUNT', count)
      : await deps.redis.xrange(key, from ? `(${from}` : '-', '+', 'COUNT', count);
  return rows.map(([id, f]) => ({
    id,
    fields: Array.from({ length: f.length / 2 }, (_, i) => [f[2 * i], f[2 * i + 1]] as [string, string]),
  }));
}

function rowOf(e: ChainEntry): AuditRow {
  const fields = Object.fromEntries(e.fields);
  return { id: e.id, kind: fields.kind ?? 'signature', fields, entry: e };
}

/** As the API: a party-scoped admin sees the entries that name its party. */
function visible(r: AuditRow, who: Principal): boolean {
  return who.party === undefined || r.entry.fields.some(([k, v]) => k === 'party' && v === who.party);
}
