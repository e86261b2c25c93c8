// Audit: every signature, approval decision, policy change and key event with who asked, the key, the hash and
// the time, newest first a page at a time; filters; CSV export of everything the filters select (newest first,
// with each whole entry so `quill audit verify` checks an unfiltered export).
import { allows } from '../../auth/index.ts';
import { type AuditRow, cursorParam, everyAuditRow, readAudit } from '../audit-read.ts';
import { csvCell, entryCell } from '../csv.ts';
import type { ConsoleDeps } from '../deps.ts';
import { PageError } from '../errors.ts';
import type { Ctx } from '../http.tsx';
import { Empty, Id, Page, Time } from '../ui.tsx';

const COLUMNS = [
  'at',
  'kind',
  'actor',
  'party',
  'keyFingerprint',
  'hash',
  'submission',
  'decision',
  'reason',
  'stored',
] as const;

/** Every kind docs/audit.md lists, for the filter. */
const KINDS = [
  'signature',
  'approval',
  'approval.review',
  'submission.signature',
  'policy',
  'policy.propose',
  'policy.approve',
  'policy.reject',
  'policy.close',
  'key.generate',
  'key.adopt',
  'key.disable',
  'key.reseal',
  'party.onboard',
  'ledger.user.update',
  'intent.reprepared',
  'submission.expire',
  'console.link',
];
const PAGE_SIZE = 50;

function matcher(q: Record<string, string>): (r: AuditRow) => boolean {
  const has = (v: string | undefined, want: string | undefined) => !want || (v ?? '').includes(want.trim());
  return (r) =>
    (!q.kind || r.kind === q.kind) &&
    has(r.fields.actor, q.actor) &&
    has(r.fields.party, q.party) &&
    has(r.fields.keyFingerprint, q.key);
}

function csvLine(r: AuditRow): string {
  const cells = [r.id, ...COLUMNS.map((k) => (k === 'kind' ? r.kind : (r.fields[k] ?? '')))].map(csvCell);
  return `${[...cells, entryCell(r.entry)].join(',')}\r\n`;
}

/** The CSV, streamed a page of the chain at a time: no cap, and no whole chain in memory. */
function csvExport(c: Ctx, deps: ConsoleDeps, keep: (r: AuditRow) => boolean) {
  const pages = everyAuditRow(deps, c.get('principal'), keep);
  const text = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(ctl) {
      ctl.enqueue(text.encode(`${['id', ...COLUMNS, 'entry'].join(',')}\r\n`));
    },
    async pull(ctl) {
      const next = await pages.next();
      if (next.done) ctl.close();
      else ctl.enqueue(text.encode(next.value.map(csvLine).join('')));
    },
    async cancel() {
      await pages.return(undefined);
    },
  });
  c.header('Content-Type', 'text/csv; charset=utf-8');
  c.header('Content-Disposition', 'attachment; filename="quill-audit.csv"');
  return c.body(body);
}

export async function auditPage(c: Ctx, deps: ConsoleDeps) {
  if (!allows(c.get('principal').role, 'admin')) throw new PageError(403, 'The audit chain needs an admin.');
  const q = c.req.query();
  const keep = matcher(q);
  const before = cursorParam(q.before);
  const after = before === undefined ? cursorParam(q.after) : undefined;
  if (q.format === 'csv') return csvExport(c, deps, keep);
  const res = await readAudit(deps, c.get('principal'), { before, after, want: PAGE_SIZE, keep });
  const shown = res.rows;
  const { before: _, after: ___, format: __, ...filters } = q;
  const exportQuery = new URLSearchParams({ ...filters, format: 'csv' }).toString();
  const olderQuery = res.older ? new URLSearchParams({ ...filters, before: res.older }).toString() : '';
  const newerQuery = res.newer ? new URLSearchParams({ ...filters, after: res.newer }).toString() : '';
  const paged = before !== undefined || after !== undefined;
  return c.html(
    <Page title="Audit" viewer={c.get('viewer')} active="/console/audit">
      <form method="get" class="inline" data-testid="audit-filters">
        <label>
          Kind
          <select name="kind">
            <option value="">any</option>
            {KINDS.map((k) => (
              <option value={k} selected={q.kind === k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        <label>
          Who
          <input name="actor" value={q.actor ?? ''} maxlength={200} />
        </label>
        <label>
          Party
          <input name="party" value={q.party ?? ''} maxlength={512} />
        </label>
        <label>
          Key
          <input name="key" value={q.key ?? ''} maxlength={100} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <p>
        {paged ? 'Older entries' : 'The newest entries'}, newest first ({shown.length} shown
        {res.older ? '; older ones on the next page' : ''}).{' '}
        {paged && (
          <>
            <a href={`/console/audit?${new URLSearchParams(filters).toString()}`} data-testid="newest">
              Newest
            </a>{' '}
          </>
        )}
        <a href={`/console/audit?${exportQuery}`} data-testid="csv">
          Export CSV
        </a>
      </p>
      {shown.length === 0 ? (
        <Empty>No entries.</Empty>
      ) : (
        <div class="scroll-x">
          <table data-testid="audit">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Kind</th>
                <th scope="col">Who</th>
                <th scope="col">Key</th>
                <th scope="col">Hash</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((r) => (
                <tr>
                  <td>
                    <Time at={r.fields.at} />
                  </td>
                  <td>{r.kind}</td>
                  <td class="wrap">{r.fields.actor ?? r.fields.by ?? ''}</td>
                  <td>
                    {r.fields.keyFingerprint ? (
                      <Id value={r.fields.keyFingerprint} href={`/console/keys/${r.fields.keyFingerprint}`} />
                    ) : (
                      ''
                    )}
                  </td>
                  <td>{r.fields.hash ? <Id value={r.fields.hash} /> : ''}</td>
                  <td>
                    {r.fields.submission ? (
                      <Id value={r.fields.submission} href={`/console/submissions/${r.fields.submission}`} />
                    ) : null}{' '}
                    {r.fields.decision ?? ''} {r.fields.reason ?? ''}
                    {r.fields.stored === 'false' ? ' (not stored: command id taken)' : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Pages of the audit">
        {res.newer && (
          <a href={`/console/audit?${newerQuery}`} data-testid="newer" rel="prev">
            Newer entries
          </a>
        )}
        {res.older && (
          <a href={`/console/audit?${olderQuery}`} data-testid="older" rel="next">
            Older entries
          </a>
        )}
      </nav>
    </Page>,
  );
}
