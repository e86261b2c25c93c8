// `quill tx hash|inspect` as a user runs it: a real process, exit codes 0 / 2, one-line errors.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodePreparedTransactionBase64 } from '@quill/canton/transaction';
import { buildPreparedTransaction, damlValue as V } from '@quill/sandbox/build';
import { afterAll, describe, expect, it } from 'vitest';
import {
  alice,
  bob,
  cidA,
  cidB,
  cidC,
  pkg,
  sampleInput,
} from '../../../packages/canton/test/transaction/sample.ts';

const root = new URL('../../../', import.meta.url).pathname;
const captured = JSON.parse(
  readFileSync(join(root, 'packages/canton/test/fixtures/vectors/participant-captured.json'), 'utf8'),
);
const first = captured[0] as {
  preparedTransactionBase64: string;
  expectedHashHex: string;
  expectedHashBase64: string;
};
const dir = mkdtempSync(join(tmpdir(), 'quill-tx-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const b64File = join(dir, 'tx.b64');
const binFile = join(dir, 'tx.bin');
writeFileSync(b64File, `${first.preparedTransactionBase64}\n`);
writeFileSync(binFile, Buffer.from(first.preparedTransactionBase64, 'base64'));
// A transaction using a contract key: LF serialization version 2, hashable only with scheme V3.
const keyedFile = join(dir, 'keyed.b64');
const keyed = buildPreparedTransaction(
  sampleInput({
    roots: [
      {
        kind: 'fetch',
        lfVersion: '2',
        contractId: cidA,
        packageName: 'coin',
        templateId: `${pkg}:Coin:Coin`,
        signatories: [alice],
        actingParties: [alice],
        byKey: true,
      },
    ],
  }),
);
writeFileSync(keyedFile, encodePreparedTransactionBase64(keyed).replace(/(.{76})/g, '$1\n'));

// An Amulet transfer as a registry would prepare it: alice's 900 consumed, 250 to bob, 650 back to alice.
const dso = `DSO::1220${'d'.repeat(64)}`;
const amulet = (owner: string, amount: string) =>
  V.record({
    dso: V.party(dso),
    owner: V.party(owner),
    amount: V.record({
      initialAmount: V.numeric(amount),
      createdAt: V.record({ number: V.int64(1n) }),
      ratePerRound: V.record({ rate: V.numeric('0.0038051800') }),
    }),
  });
const amuletTemplate = `${'f'.repeat(64)}:Splice.Amulet:Amulet`;
const amuletFile = join(dir, 'amulet.b64');
writeFileSync(
  amuletFile,
  encodePreparedTransactionBase64(
    buildPreparedTransaction(
      sampleInput({
        inputContracts: [
          {
            contract: {
              contractId: cidA,
              packageName: 'splice-amulet',
              templateId: amuletTemplate,
              argument: amulet(alice, '900.0000000000'),
              signatories: [dso, alice],
            },
            createdAt: '2026-11-25T10:00:00Z',
          },
        ],
        roots: [
          {
            kind: 'exercise',
            contractId: cidA,
            packageName: 'splice-amulet',
            templateId: amuletTemplate,
            choice: 'Archive',
            choiceArgument: V.record({}),
            consuming: true,
            actingParties: [alice],
            signatories: [dso, alice],
            result: V.unit(),
          },
          ...[
            [cidB, bob, '250.0000000000'],
            [cidC, alice, '650.0000000000'],
          ].map(([cid, owner, amount]) => ({
            kind: 'create' as const,
            contractId: cid as string,
            packageName: 'splice-amulet',
            templateId: amuletTemplate,
            argument: amulet(owner as string, amount as string),
            signatories: [dso, owner as string],
          })),
        ],
      }),
    ),
  ),
);
const badRecognizers = join(dir, 'recognizers.yaml');
writeFileSync(badRecognizers, 'holdings:\n  - template: "not a template"\n');

function quill(
  args: string[],
  stdin?: string | Buffer,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [join(root, 'bin/quill.js'), ...args], { cwd: root });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
    p.stdin.end(stdin ?? '');
  });
}

describe('quill tx', () => {
  it('hash prints lowercase hex from a base64 file, raw bytes on stdin, and JSON', async () => {
    const [a, b, c] = await Promise.all([
      quill(['tx', 'hash', b64File]),
      quill(['tx', 'hash', '-'], readFileSync(binFile)),
      quill(['tx', 'hash', '--json', '--scheme', 'v2', b64File]),
    ]);
    expect(a).toMatchObject({ code: 0, stdout: `${first.expectedHashHex}\n`, stderr: '' });
    expect(b).toMatchObject({ code: 0, stdout: `${first.expectedHashHex}\n` });
    expect(c.code).toBe(0);
    expect(JSON.parse(c.stdout)).toEqual({
      hash: first.expectedHashHex,
      hashBase64: first.expectedHashBase64,
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
    });
  });
  it('inspect prints the preview JSON', async () => {
    const r = await quill(['tx', 'inspect'], first.preparedTransactionBase64);
    expect(r.code).toBe(0);
    const p = JSON.parse(r.stdout);
    expect(p.hash).toBe(first.expectedHashHex);
    expect(p.nodes[0].kind).toBe('create');
  });
  it('inspect leads with one sentence per movement and the node tree', async () => {
    const r = await quill(['tx', 'inspect', amuletFile]);
    expect(r.code).toBe(0);
    const p = JSON.parse(r.stdout);
    expect(Object.keys(p).slice(0, 3)).toEqual(['summary', 'tree', 'movements']);
    expect(p.summary).toEqual([
      `alice::1220aaaa sends 250.0 Amulet (admin DSO::1220dddddddd…) to bob::1220bbbb; 650.0 back as change`,
    ]);
    expect(p.tree).toEqual([
      '[0] consuming exercise Archive on #splice-amulet:Splice.Amulet:Amulet by alice::1220aaaa',
      '[1] create #splice-amulet:Splice.Amulet:Amulet',
      '[2] create #splice-amulet:Splice.Amulet:Amulet',
    ]);
    expect(p.movements.deltas[0]).toMatchObject({ party: alice, outflow: '250' });
  });
  it('bad input exits 2 with one line on stderr', async () => {
    const results = await Promise.all([
      quill(['tx', 'hash'], 'bm90IGEgdHJhbnNhY3Rpb24='),
      quill(['tx', 'hash', join(dir, 'missing')]),
      quill(['tx', 'hash', '--scheme', 'v9', b64File]),
      quill(['tx', 'inspect'], Buffer.from([0x0a, 0xff, 0xff])),
      quill(['tx', 'hash', keyedFile]),
      quill(['tx', 'inspect', '--recognizers', badRecognizers, amuletFile]),
      quill(['tx', 'inspect', '--recognizers', join(dir, 'missing.yaml'), amuletFile]),
    ]);
    for (const r of results) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    }
    expect(results[2]!.stderr).toContain('unknown hashing scheme');
    expect(results[4]!.stderr).toContain(
      'Cannot hash node with LF serialization version V2 using hashing scheme V2',
    );
    expect(results[5]!.stderr).toContain('--recognizers: holdings[0].template');
    expect(results[6]!.stderr).toContain('--recognizers: cannot read');
  });
  it('hashes a keyed, line-wrapped transaction with --scheme v3', async () => {
    const r = await quill(['tx', 'hash', '--scheme', 'v3', keyedFile]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^[0-9a-f]{64}\n$/);
  });
});
