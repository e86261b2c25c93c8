// The console's audit views over a chain longer than 20,000 entries (review F9): the newest entry is on the first
// page of the audit, in the CSV export, on its key's page and among the latest decisions, and older pages are
// reached by cursor. The CSV carries each whole entry, so `quill audit verify` checks an unfiltered export
// (round trip), and no cell of it runs as a formula in a `,` or a `;` locale spreadsheet (review F13).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sandbox } from '@quill/sandbox';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AuditLog } from '../../../src/audit/index.ts';
import { csvRows } from '../../../src/console/csv.ts';
import { httpSession, link, startConsoleWallet } from '../../support/console.ts';
import { runCli } from '../../support/run-cli.ts';
import { tempDir } from '../../support/tmp.ts';
import { noteCommand, prepareOn, startLedger, walletConfig } from '../../support/wallet.ts';

const FILLER = 20_001;
const PREFIX = `e2e-audit-${Date.now().toString(36)}`;
let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let redis: Redis;
let cookie = '';
let fp = '';
let party = '';
let newest = '';

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startConsoleWallet(sandbox, walletConfig(inject('redisUrl'), { REDIS_PREFIX: PREFIX }));
  redis = new Redis(inject('redisUrl'));
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  fp = key.json.fingerprint as string;
  party = (await w.call('POST', '/wallet/v1/parties', { keyFingerprint: fp, partyHint: 'f9' })).json
    .partyId as string;
  // More than 20,000 chain-valid entries through the real append, sent without waiting on each other.
  const audit = new AuditLog(redis, PREFIX);
  for (let n = 0; n < FILLER; n += 2000)
    await Promise.all(
      Array.from({ length: Math.min(2000, FILLER - n) }, (_, i) =>
        audit.append({ kind: 'policy', at: new Date().toISOString(), actor: `filler-${n + i}` }),
      ),
    );
  // The newest entries: a real signature, then a decision and values a spreadsheet would run.
  const prepared = await prepareOn(w.client, party, noteCommand(party));
  newest = (await w.call('POST', '/wallet/v1/submissions', prepared)).json.id as string;
  expect(newest).toMatch(/^sub_/);
  await audit.append({
    kind: 'approval',
    at: new Date().toISOString(),
    actor: '=HYPERLINK(A1)',
    decision: 'approve',
    submission: 'sub_latestdecision',
    reason: `fine;=cmd|'/C calc'!A0, or; +1 ;"@x" -2`,
  });
  ({ cookie } = await httpSession(w.url, await link(w.url, 'admin')));
}, 120_000);

afterAll(async () => {
  await redis?.quit();
  await w?.wallet.close();
  await sandbox?.close();
});

const page = async (path: string) => {
  const res = await fetch(`${w.url}${path}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return res.text();
};

describe('console audit views on a long chain', () => {
  it('shows the newest entries first on the audit page, and older ones by cursor', async () => {
    expect(await redis.xlen(`${PREFIX}:audit`)).toBeGreaterThan(20_001);
    const first = await page('/console/audit');
    expect(first).toContain(newest);
    expect(first).toContain('sub_latestdecision');
    expect(first).not.toContain('filler-0<');
    const older = /href="(\/console\/audit\?before=[^"]+)" data-testid="older"/.exec(first)?.[1];
    expect(older).toBeDefined();
    const second = await page((older ?? '').replaceAll('&amp;', '&'));
    expect(second).not.toContain(newest);
    expect(second).toMatch(/filler-\d+/);
    // A filter is applied on the server before paging: the signature is the newest signature.
    expect(await page(`/console/audit?kind=signature&key=${fp}`)).toContain(newest);
  });

  it('shows the newest signature on its key page and the newest decision on the approvals page', async () => {
    expect(await page(`/console/keys/${fp}`)).toContain(newest);
    expect(await page('/console/approvals')).toContain('sub_latestdecision');
  });

  it('exports every entry, newest first, as a CSV that `quill audit verify` accepts', async () => {
    const res = await fetch(`${w.url}/console/audit?format=csv`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const csv = await res.text();
    const rows = csvRows(csv);
    const total = await redis.xlen(`${PREFIX}:audit`);
    expect(rows).toHaveLength(total + 1);
    expect(rows[1]?.[7]).toBe('sub_latestdecision');
    expect(csv).toContain(newest);

    const file = join(tempDir('quill-audit-csv-'), 'audit.csv');
    await writeFile(file, csv);
    expect(await runCli(['audit', 'verify', file], {})).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`ok: ${total} entries`),
    });
    // An edited entry in the export is named.
    const edited = csv.replace('""filler-7""', '""filler-9""');
    expect(edited).not.toBe(csv);
    await writeFile(file, edited);
    expect(await runCli(['audit', 'verify', file], {})).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('was edited'),
    });
  }, 60_000);

  it('neutralises every cell a `,` or a `;` locale spreadsheet would run as a formula', async () => {
    const res = await fetch(`${w.url}/console/audit?format=csv&kind=approval`, { headers: { cookie } });
    const csv = await res.text();
    const formula = /^[=+\-@\t\r]/;
    // A `,` locale: RFC 4180 cells.
    const cells = csvRows(csv).flat();
    expect(cells.filter((c) => formula.test(c))).toEqual([]);
    expect(cells).toContain("'=HYPERLINK(A1)");
    // A `;` locale reads the same lines split at every `;` (quotes count only at the start of a part).
    const parts = csv.split(/\r\n/).flatMap((line) => line.split(';'));
    const unquote = (p: string) => (p.startsWith('"') ? p.slice(1).replace(/^"/, '') : p);
    expect(parts.filter((p) => formula.test(unquote(p).trimStart()))).toEqual([]);
  });
});
