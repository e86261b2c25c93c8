// The submissions list (issue 30 items 7 and 10): filters by party, status and creation time (a bad filter is
// answered beside the form), status chips with counts, 50 to a page with older, newer and first-page links, a CSV
// export of everything the filters select, and rows with amount, what, requested by and attempts that update in
// place (console.js polls the rows fragment).
import type { InferResponseType } from 'hono/client';
import { SUBMISSION_STATUSES, type SubmissionStatus } from '../../submissions/index.ts';
import { type Api, answer } from '../client.ts';
import { csvCell } from '../csv.ts';
import type { ConsoleDeps } from '../deps.ts';
import { PageError } from '../errors.ts';
import { apiMessage, type Ctx, must } from '../http.tsx';
import { Amount, Empty, FormError, Id, Page, Party, Status, Time } from '../ui.tsx';
import { amountOf, describeAll } from '../what.ts';

/** A submission record as the API answers it. */
export type Submission = InferResponseType<Api['wallet']['v1']['submissions']['$get'], 200>['items'][number];

const PAGE = 50;
/** The most rows one CSV export writes. */
const CSV_MAX = 100_000;

interface Filters {
  party?: string;
  status?: SubmissionStatus;
  since?: string;
  until?: string;
}

/** A `datetime-local` value (read as UTC) or an ISO time; undefined when empty; throws a message when neither. */
function time(v: string | undefined, name: string): string | undefined {
  if (!v?.trim()) return undefined;
  const t = v.trim();
  const iso = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(t)
    ? `${t.replace(' ', 'T')}${t.length === 16 ? ':00' : ''}Z`
    : t;
  if (Number.isNaN(Date.parse(iso)) || !/^\d{4}-\d{2}-\d{2}T/.test(iso))
    throw new Error(`${name}: not a date and time (use YYYY-MM-DD HH:MM, UTC)`);
  return new Date(iso).toISOString();
}

/** The filters, or what is wrong with them (shown beside the form). */
/** `olderThan=10m` (or `2h`, `1d`): created before that long ago, as the `to` time (the overview's links). */
function olderThan(v: string | undefined): string | undefined {
  if (!v) return undefined;
  const m = /^(\d{1,5})([mhd])$/.exec(v.trim());
  if (!m) throw new Error('olderThan: a number of minutes, hours or days, such as 10m, 2h or 1d');
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd'];
  return new Date(Date.now() - Number(m[1]) * unit).toISOString();
}

function readFilters(c: Ctx): { f: Filters; error?: string } {
  const q = c.req.query();
  const f: Filters = {};
  const party = q.party?.trim() || c.get('viewer').principal.party;
  if (party) f.party = party;
  try {
    const status = SUBMISSION_STATUSES.find((s) => s === q.status);
    if (q.status && !status) throw new Error(`status: one of ${SUBMISSION_STATUSES.join(', ')}`);
    if (status) f.status = status;
    const since = time(q.since, 'from');
    const until = time(q.until, 'to') ?? olderThan(q.olderThan);
    if (since) f.since = since;
    if (until) f.until = until;
    return { f };
  } catch (err) {
    return { f, error: (err as Error).message };
  }
}

function query(f: Filters, extra: Record<string, string | undefined> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...f, ...extra })) if (v) p.set(k, v);
  return p.toString();
}

/** A page cursor as the API hands it out (opaque, short). */
const CURSOR = /^[\w.~-]{1,200}$/;

/** `cursor`: this page's start; `prev`: the cursors of the newer pages before it, newest first, comma-separated. */
function paging(c: Ctx): { cursor?: string; prev: string[] } {
  const cursor = c.req.query('cursor');
  const prev = (c.req.query('prev') ?? '').split(',').filter((x) => x !== '');
  if ((cursor && !CURSOR.test(cursor)) || prev.length > 500 || prev.some((x) => x !== '-' && !CURSOR.test(x)))
    throw new PageError(400, 'That page cursor is not one this list handed out.');
  return { ...(cursor ? { cursor } : {}), prev };
}

async function load(c: Ctx, f: Filters, cursor?: string, limit = PAGE) {
  const res = await answer(
    c.get('api').wallet.v1.submissions.$get({
      query: { ...f, ...(cursor ? { cursor } : {}), limit: String(limit) },
    }),
  );
  if (res.status === 400) throw new PageError(400, apiMessage(res));
  return must(res, 'submissions');
}

const Rows = (p: { items: Submission[]; what: Map<string, string>; now: number }) => (
  <tbody data-testid="submission-rows" data-live-list="submissions">
    {p.items.map((r) => {
      const amount = amountOf(r);
      return (
        <tr data-id={r.id}>
          <td>
            <Id value={r.id} href={`/console/submissions/${r.id}`} />
          </td>
          <td>
            <Status status={r.status} />
            {r.error && <div class="mono code">{r.error.code}</div>}
          </td>
          <td>
            <Party value={r.party} />
          </td>
          <td class="num">
            <Amount value={amount?.value} instrument={amount?.instrument} testid="amount" />
          </td>
          <td class="what" data-testid="what">
            {p.what.get(r.id) ?? ''}
          </td>
          <td data-testid="requested-by">{r.requestedBy}</td>
          <td class="num" data-testid="attempts">
            {r.attempts.length}
          </td>
          <td>
            <Time at={r.createdAt} now={p.now} />
          </td>
          <td>
            <Time at={r.updatedAt} now={p.now} />
          </td>
        </tr>
      );
    })}
  </tbody>
);

/**
 * Submissions with status (and error code), party, amount, what, who asked, attempts and times; `live`: the rows fragment
 * console.js polls to update them.
 */
export const SubmissionTable = (p: {
  items: Submission[];
  what: Map<string, string>;
  live?: string;
  now?: number;
}) => (
  <table data-live-src={p.live} data-testid="submissions">
    <thead>
      <tr>
        <th scope="col">Submission</th>
        <th scope="col">Status (error)</th>
        <th scope="col">Party</th>
        <th scope="col">Amount</th>
        <th scope="col">What</th>
        <th scope="col">Requested by</th>
        <th scope="col">Attempts</th>
        <th scope="col">Created</th>
        <th scope="col">Updated</th>
      </tr>
    </thead>
    <Rows items={p.items} what={p.what} now={p.now ?? Date.now()} />
  </table>
);

/** Rows for a table of submissions: the records and what each does. */
export async function submissionTableData(c: Ctx, items: Submission[]) {
  return { items, what: await describeAll(c.get('api'), items) };
}

/** Status chips: every status with its count (the party's, when filtered by one), each a link to the filter. */
const Chips = (p: { counts: Record<string, number> | undefined; f: Filters }) => {
  if (!p.counts) return null;
  const total = Object.values(p.counts).reduce((a, b) => a + b, 0);
  const chip = (status: string | undefined, label: string, n: number) => (
    <li>
      <a
        href={`/console/submissions?${query({ ...p.f, status: status as SubmissionStatus | undefined })}`}
        aria-current={p.f.status === status ? 'true' : undefined}
      >
        {label} <span class="count">{n}</span>
      </a>
    </li>
  );
  return (
    <ul class="chips" data-testid="status-chips" aria-label="Submissions by status" data-live-region="chips">
      {chip(undefined, 'all', total)}
      {SUBMISSION_STATUSES.filter((s) => (p.counts?.[s] ?? 0) > 0 || p.f.status === s).map((s) =>
        chip(s, s, p.counts?.[s] ?? 0),
      )}
    </ul>
  );
};

export async function submissionsPage(c: Ctx, deps: ConsoleDeps) {
  const viewer = c.get('viewer');
  const { f, error } = readFilters(c);
  const { cursor, prev } = paging(c);
  if (!error && c.req.query('format') === 'csv') return csvExport(c, f);
  const [page, counts] = error
    ? [undefined, undefined]
    : await Promise.all([
        load(c, f, cursor),
        // Only what the viewer may see: a scoped operator's counts are its own party's, whatever it filters by.
        deps.statusCounts(viewer.principal.party ?? f.party).catch(() => undefined),
      ]);
  const rows = page ? await submissionTableData(c, page.items) : undefined;
  const local = (iso?: string) => (iso ? iso.slice(0, 16) : '');
  const newer =
    cursor === undefined
      ? undefined
      : prev.length === 0 || prev[0] === '-'
        ? query(f, prev.length > 1 ? { prev: prev.slice(1).join(',') } : {})
        : query(f, { cursor: prev[0], prev: prev.slice(1).join(',') || undefined });
  return c.html(
    <Page title="Submissions" viewer={viewer} active="/console/submissions">
      <form method="get" action="/console/submissions" class="inline" data-testid="submission-filters">
        <label>
          Party
          <input name="party" value={c.req.query('party') ?? viewer.principal.party ?? ''} maxlength={512} />
        </label>
        <label>
          Status
          <select name="status">
            <option value="">any</option>
            {SUBMISSION_STATUSES.map((s) => (
              <option value={s} selected={f.status === s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          From (UTC)
          <input
            type="datetime-local"
            name="since"
            value={f.since ? local(f.since) : (c.req.query('since') ?? '')}
          />
        </label>
        <label>
          To (UTC)
          <input
            type="datetime-local"
            name="until"
            value={f.until ? local(f.until) : (c.req.query('until') ?? '')}
          />
        </label>
        <button type="submit">Filter</button>
        <FormError message={error} />
      </form>
      <Chips counts={counts} f={f} />
      {page && rows && (
        <>
          {page.items.length === 0 && !cursor ? <Empty>No submissions match.</Empty> : null}
          <div class="scroll-x">
            <SubmissionTable
              items={rows.items}
              what={rows.what}
              live={cursor ? undefined : `/console/submissions/rows?${query(f)}`}
            />
          </div>
          <nav class="pager" aria-label="Pages of submissions">
            {cursor !== undefined && (
              <a href={`/console/submissions?${query(f)}`} data-testid="first">
                First page
              </a>
            )}
            {newer !== undefined && (
              <a href={`/console/submissions?${newer}`} data-testid="newer" rel="prev">
                Newer
              </a>
            )}
            {page.nextCursor && (
              <a
                href={`/console/submissions?${query(f, { cursor: page.nextCursor, prev: [cursor ?? '-', ...prev].join(',') })}`}
                data-testid="older"
                rel="next"
              >
                Older
              </a>
            )}
            <a href={`/console/submissions?${query(f, { format: 'csv' })}`} data-testid="csv">
              Export CSV
            </a>
          </nav>
        </>
      )}
    </Page>,
    error ? 400 : 200,
  );
}

/** The rows alone, for console.js to swap in place (statuses change without a reload). */
export async function submissionRows(c: Ctx) {
  const { f, error } = readFilters(c);
  if (error) throw new PageError(400, error);
  const page = await load(c, f);
  const rows = await submissionTableData(c, page.items);
  return c.html(<Rows items={rows.items} what={rows.what} now={Date.now()} />);
}

const CSV_COLUMNS = [
  'id',
  'status',
  'party',
  'amount',
  'instrument',
  'what',
  'requestedBy',
  'attempts',
  'errorCode',
  'createdAt',
  'updatedAt',
  'updateId',
  'commandId',
] as const;

/** Every submission the filters select, newest first, as CSV (streamed a page at a time, at most CSV_MAX rows). */
function csvExport(c: Ctx, f: Filters) {
  const text = new TextEncoder();
  let cursor: string | undefined;
  let written = 0;
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    start(ctl) {
      ctl.enqueue(text.encode(`${CSV_COLUMNS.join(',')}\r\n`));
    },
    async pull(ctl) {
      if (done) return ctl.close();
      const page = await load(c, f, cursor, 500);
      const what = await describeAll(c.get('api'), page.items);
      const lines = page.items.slice(0, CSV_MAX - written).map((r) => {
        const amount = amountOf(r);
        const cells = [
          r.id,
          r.status,
          r.party,
          amount?.value ?? '',
          amount?.instrument ?? '',
          what.get(r.id) ?? '',
          r.requestedBy,
          String(r.attempts.length),
          r.error?.code ?? '',
          r.createdAt,
          r.updatedAt,
          r.updateId ?? '',
          r.commandId,
        ];
        return `${cells.map(csvCell).join(',')}\r\n`;
      });
      written += lines.length;
      cursor = page.nextCursor ?? undefined;
      done = !cursor || written >= CSV_MAX;
      ctl.enqueue(text.encode(lines.join('')));
    },
  });
  c.header('Content-Type', 'text/csv; charset=utf-8');
  c.header('Content-Disposition', 'attachment; filename="quill-submissions.csv"');
  return c.body(body);
}
