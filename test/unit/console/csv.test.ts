// The console's audit CSV: no cell runs as a formula in a `,` or a `;` locale spreadsheet (review F13), and the
// `entry` column reads back exactly as stored, whatever the values, so `quill audit verify` can check an export.
// Also the OIDC party claim, refused when empty, blank or not text as an API token's is (review F7).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell, csvRows, entriesFromCsv, entryCell } from '../../../src/console/csv.ts';
import { OidcError } from '../../../src/console/errors.ts';
import { partyFrom } from '../../../src/console/oidc.ts';

const FORMULA = /^[=+\-@\t\r]/;

/** The cells a spreadsheet sees: RFC 4180 in a `,` locale; in a `;` locale, every `;`-part of each line. */
function spreadsheetCells(text: string): string[] {
  const comma = csvRows(`${text}\r\n`).flat();
  // A `;` locale: quotes count only at the start of a part, so a quoted line break may start a part too.
  const semicolon = text
    .split(/\r\n|\r|\n/)
    .flatMap((line) => line.split(';'))
    .map((p) => (p.startsWith('"') ? p.slice(1).replace(/^"/, '') : p).trimStart());
  return [...comma, ...semicolon];
}

describe('csvCell', () => {
  it.each([
    ['=HYPERLINK(A1)', "'=HYPERLINK(A1)"],
    ['+1', "'+1"],
    ['-2', "'-2"],
    ['@x', "'@x"],
    ['\tx', "'\tx"],
    ['fine', 'fine'],
    ['a,b', '"a,b"'],
    ['a;b', '"a;b"'],
    [`fine;=cmd|'/C calc'!A0`, `"fine;'=cmd|'/C calc'!A0"`],
    ['x; +1', `"x;' +1"`],
    ['x;"=1"', `"x;'""=1"""`],
  ])('%j is written %j', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('never leaves a formula in either locale', () => {
    const risky = fc.constantFrom('=', '+', '-', '@', ';', ',', '"', "'", ' ', '\t', '\r', '\n', 'a', '|');
    fc.assert(
      fc.property(fc.array(fc.string({ unit: risky }), { minLength: 1, maxLength: 4 }), (values) => {
        const line = values.map(csvCell).join(',');
        expect(spreadsheetCells(line).filter((c) => FORMULA.test(c))).toEqual([]);
        expect(csvRows(`${line}\r\n`)[0]?.length).toBe(values.length);
      }),
    );
  });
});

describe('entry column', () => {
  it('reads back every entry exactly, oldest first', () => {
    const text = fc.string({ unit: 'binary' });
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.tuple(text, text), { maxLength: 5 }), { minLength: 1, maxLength: 5 }),
        (fieldLists) => {
          const entries = fieldLists.map((fields, i) => ({ id: `${1000 + i}-0`, fields }));
          const csv = `id,other,entry\r\n${[...entries]
            .reverse()
            .map((e) => `${e.id},${csvCell('=x;-y')},${entryCell(e)}\r\n`)
            .join('')}`;
          expect(entriesFromCsv(csv)).toEqual(entries);
          // The entry cell itself never needs neutralising.
          for (const e of entries) expect(entryCell(e)).not.toMatch(/;|^'/);
        },
      ),
    );
  });

  it('names a CSV without an entry column or with a bad entry', () => {
    expect(() => entriesFromCsv('id,at\r\n1-0,x\r\n')).toThrow(/no entry column/);
    expect(() => entriesFromCsv('id,entry\r\n1-0,{}\r\n')).toThrow(
      /row 2: the entry cell is not an audit entry/,
    );
  });
});

describe('OIDC party claim', () => {
  it('absent: every party; a party id: that party', () => {
    expect(partyFrom({}, 'quill_party')).toBeUndefined();
    expect(partyFrom({ quill_party: 'alice::1220ab' }, 'quill_party')).toBe('alice::1220ab');
  });

  it.each([[''], ['   '], [null], [['alice::1220ab']], [42], ['x'.repeat(513)]])('refuses %j', (v) => {
    expect(() => partyFrom({ quill_party: v }, 'quill_party')).toThrow(OidcError);
  });
});
