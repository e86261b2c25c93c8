// The audit chain as CSV (the console's export): readable columns for a spreadsheet, and an `entry` column with
// the whole entry as `quill audit export` writes it, so `quill audit verify FILE` checks an unfiltered export.
// Spreadsheets run cells that start with = + - @; in `;`-separator locales (de, fr, nl) a `,`-CSV line is split
// at every `;` (and, outside quotes, at every line break), so each such part of a cell is a cell there too and
// is neutralised the same way.

/** One audit entry as stored and as `quill audit export` writes it (src/audit ChainEntry). */
export interface ChainEntry {
  id: string;
  fields: [string, string][];
}

/** A cell that no spreadsheet runs as a formula, with `,` or `;` locales: RFC 4180 quoting plus a ' prefix. */
export function csvCell(v: string): string {
  const parts = v.replace(/[;\r\n](?=[ \t"']*[=+\-@])/g, (m) => `${m}'`);
  const safe = /^[\s"']*[=+\-@]|^[\t\r]/.test(parts) ? `'${parts}` : parts;
  return /[",;\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * The `entry` cell: the entry as one JSON line, `;` written as \u003b (the same JSON, but never split by a `;`
 * locale), so neither quoting nor neutralising ever changes what verify reads back.
 */
export function entryCell(e: ChainEntry): string {
  return csvCell(JSON.stringify({ id: e.id, fields: e.fields }).replaceAll(';', '\\u003b'));
}

/** RFC 4180 rows (quoted cells may hold `,`, `"` and line breaks). */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/**
 * The entries of a console CSV export, oldest first (the export is newest first; stream ids order the chain,
 * and the links are checked after, so a reordered file still fails). Throws with the line of a bad row.
 */
export function entriesFromCsv(text: string): ChainEntry[] {
  const [header, ...rows] = csvRows(text);
  const at = header?.indexOf('entry') ?? -1;
  if (at < 0) throw new Error('line 1: no entry column (an audit CSV exported by the console)');
  const entries = rows.map((r, i) => {
    let v: unknown;
    try {
      v = JSON.parse(r[at] ?? '');
    } catch {
      throw new Error(`row ${i + 2}: the entry cell is not JSON`);
    }
    if (!isEntry(v)) throw new Error(`row ${i + 2}: the entry cell is not an audit entry`);
    return v;
  });
  return entries.sort((a, b) => compareIds(a.id, b.id));
}

export function isEntry(v: unknown): v is ChainEntry {
  const e = v as ChainEntry;
  return (
    typeof e?.id === 'string' &&
    Array.isArray(e.fields) &&
    e.fields.every((f) => Array.isArray(f) && f.length === 2 && f.every((x) => typeof x === 'string'))
  );
}

function compareIds(a: string, b: string): number {
  const [am = 0n, as = 0n] = a.split('-').map(idPart);
  const [bm = 0n, bs = 0n] = b.split('-').map(idPart);
  return am !== bm ? (am < bm ? -1 : 1) : as < bs ? -1 : as > bs ? 1 : 0;
}

function idPart(s: string): bigint {
  return /^\d{1,20}$/.test(s) ? BigInt(s) : 0n;
}
