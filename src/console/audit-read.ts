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
}

const CURSOR = /^\d{1,20}-\d{1,20}$/;

/** A page's `before` query parameter: absent, or a stream entry id (anything else is a 400 page). */
export function cursorParam(v: string | undefined): string | undefined {
  if (v === undefined || v === '') return undefined;
  if (!CURSOR.test(v)) throw new PageError(400, 'That page cursor is not an audit entry id.');
  return v;
}

/**
 * Up to `want` rows that `keep` selects, newest first, starting before `before` and scanning at most `scan`
 * entries (a rare filter then shows fewer rows and an "older" link rather than reading the whole chain).
 */
export async function readAudit(
  deps: ConsoleDeps,
  principal: Principal,
  opts: { before?: string; want: number; scan?: number; keep?: (r: AuditRow) => boolean },
): Promise<AuditRead> {
  if (!allows(principal.role, 'admin')) return { status: 403, rows: [], older: null };
  const scan = opts.scan ?? 20_000;
  const rows: AuditRow[] = [];
  let cursor = opts.before;
  let scanned = 0;
  while (rows.length < opts.want && scanned < scan) {
    const count = Math.min(1000, scan - scanned);
    const page = await entriesBefore(deps, cursor, count);
    for (const e of page) {
      cursor = e.id;
      scanned++;
      const r = rowOf(e);
      if (visible(r, principal) && (opts.keep?.(r) ?? true)) rows.push(r);
      if (rows.length === opts.want) break;
    }
    if (page.length < count && rows.length < opts.want) return { status: 200, rows, older: null };
  }
  return { status: 200, rows, older: cursor ?? null };
}

/** Every row `keep` selects, newest first, a page of the stream at a time (the CSV export). */
export async function* everyAuditRow(
  deps: ConsoleDeps,
  principal: Principal,
  keep: (r: AuditRow) => boolean,
): AsyncGenerator<AuditRow[]> {
  for (let cursor: string | undefined; ; ) {
    const page = await entriesBefore(deps, cursor, 1000);
    yield page.map(rowOf).filter((r) => visible(r, principal) && keep(r));
    if (page.length < 1000) return;
    cursor = page.at(-1)?.id;
  }
}

/** Entries before `before` (exclusive; absent: from the newest), newest first. */
async function entriesBefore(
  deps: ConsoleDeps,
  before: string | undefined,
  count: number,
): Promise<ChainEntry[]> {
  const rows = await deps.redis.xrevrange(
    redisKeys(deps.prefix).audit,
    before ? `(${before}` : '+',
    '-',
    'COUNT',
    count,
  );
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
