// Audit: every signature, approval decision, policy change and key event with who asked, the key, the hash and
// the time; filters; CSV export of what the filters select. Reads the chain through the API (admin).
import { type AuditRow, readAudit } from '../audit-read.ts';
import { type Ctx, must } from '../http.tsx';
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

function filtered(rows: AuditRow[], q: Record<string, string>): AuditRow[] {
  const has = (v: string | undefined, want: string | undefined) => !want || (v ?? '').includes(want.trim());
  return rows.filter(
    (r) =>
      (!q.kind || r.kind === q.kind) &&
      has(r.fields.actor, q.actor) &&
      has(r.fields.party, q.party) &&
      has(r.fields.keyFingerprint, q.key),
  );
}

/** RFC 4180 quoting; a leading = + - @ is prefixed with ' so a spreadsheet never runs it as a formula. */
function csvCell(v: string): string {
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export async function auditPage(c: Ctx) {
  const q = c.req.query();
  const res = await readAudit(c.get('api'));
  if (res.status !== 200)
    must({ status: res.status, body: { error: { message: 'the audit chain needs an admin' } } }, 'audit');
  const rows = filtered(res.rows, q);
  if (q.format === 'csv') {
    const lines = [['id', ...COLUMNS].join(',')];
    for (const r of rows)
      lines.push(
        [r.id, ...COLUMNS.map((k) => (k === 'kind' ? r.kind : (r.fields[k] ?? '')))].map(csvCell).join(','),
      );
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header('Content-Disposition', 'attachment; filename="quill-audit.csv"');
    return c.body(`${lines.join('\r\n')}\r\n`);
  }
  const kinds = [...new Set(res.rows.map((r) => r.kind))].sort();
  const shown = rows.slice(-500).reverse();
  const exportQuery = new URLSearchParams({ ...q, format: 'csv' }).toString();
  return c.html(
    <Page title="Audit" viewer={c.get('viewer')} active="/console/audit">
      <form method="get" class="inline" data-testid="audit-filters">
        <label>
          Kind
          <select name="kind">
            <option value="">any</option>
            {kinds.map((k) => (
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
        {rows.length} entries match{rows.length > shown.length ? ` (the newest ${shown.length} shown)` : ''}.{' '}
        <a href={`/console/audit?${exportQuery}`} data-testid="csv">
          Export CSV
        </a>
      </p>
      {shown.length === 0 ? (
        <Empty>No entries.</Empty>
      ) : (
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
                <td>{r.fields.actor ?? r.fields.by ?? ''}</td>
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
      )}
    </Page>,
  );
}
