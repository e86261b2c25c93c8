// `quill tx hash|inspect` and `quill submit` take the participant's prepare response JSON unchanged
// (preparedTransaction, preparedTransactionHash, hashingSchemeVersion, hashingDetails, costEstimation, and any
// future field ignored): the scheme it names is used, a hash that is not the recomputed one exits 1, and submit
// forwards costEstimation but not what the wallet API does not take.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodePreparedTransactionBase64, hashPreparedTransaction } from '@quill/canton/transaction';
import { buildPreparedTransaction } from '@quill/sandbox/build';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleInput } from '../../../packages/canton/test/transaction/sample.ts';
import { runCli } from '../../support/run-cli.ts';
import { tempDir } from '../../support/tmp.ts';
import { type FakeWallet, startFakeWallet } from './fake-wallet.ts';

const root = new URL('../../../', import.meta.url).pathname;
const [vector] = JSON.parse(
  readFileSync(join(root, 'packages/canton/test/fixtures/vectors/participant-captured.json'), 'utf8'),
) as { preparedTransactionBase64: string; expectedHashHex: string; expectedHashBase64: string }[];
if (!vector) throw new Error('no captured vector');

const dir = tempDir('quill-cli-prepare-');
const costEstimation = {
  estimationTimestamp: '2026-11-25T10:00:00Z',
  confirmationRequestTrafficCostEstimation: 1234,
  confirmationResponseTrafficCostEstimation: 300,
  totalTrafficCostEstimation: 1534,
};

/** A prepare response as the participant answers it, plus a field a later version might add. */
function response(fields: Record<string, unknown>): string {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      hashingDetails: null,
      costEstimation,
      somethingNew: { nested: true },
      ...fields,
    }),
  );
  return file;
}

const v2File = () =>
  response({
    preparedTransaction: vector.preparedTransactionBase64,
    preparedTransactionHash: vector.expectedHashBase64,
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
  });

// A V3 preparation: its hash differs from the V2 one, so the scheme read from the file shows.
const v3tx = buildPreparedTransaction(sampleInput());
const v3hash = Buffer.from(hashPreparedTransaction(v3tx, 'HASHING_SCHEME_VERSION_V3'));
const v2hashOfV3tx = Buffer.from(hashPreparedTransaction(v3tx, 'HASHING_SCHEME_VERSION_V2'));
const v3File = () =>
  response({
    preparedTransaction: encodePreparedTransactionBase64(v3tx),
    preparedTransactionHash: v3hash.toString('base64'),
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3',
  });

describe('quill tx with a prepare response', () => {
  it('hash: the recomputed hash under the scheme the response names', async () => {
    const v2 = await runCli(['tx', 'hash', v2File()], {});
    expect(v2).toEqual({ code: 0, stdout: `${vector.expectedHashHex}\n`, stderr: '' });
    const v3 = await runCli(['tx', 'hash', '--json', v3File()], {});
    expect(v3.code, v3.stderr).toBe(0);
    expect(JSON.parse(v3.stdout)).toEqual({
      hash: v3hash.toString('hex'),
      hashBase64: v3hash.toString('base64'),
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3',
    });
    expect(v3hash.equals(v2hashOfV3tx)).toBe(false);
    // --scheme, when given, wins (the response's hash is then not comparable).
    const asV2 = await runCli(['tx', 'hash', '--scheme', 'v2', v3File()], {});
    expect(asV2).toEqual({ code: 0, stdout: `${v2hashOfV3tx.toString('hex')}\n`, stderr: '' });
  });

  it('inspect: the preview of the response, its hash checked', async () => {
    const r = await runCli(['tx', 'inspect', v3File()], {});
    expect(r.code, r.stderr).toBe(0);
    const p = JSON.parse(r.stdout);
    expect([p.hash, p.hashingSchemeVersion]).toEqual([v3hash.toString('hex'), 'HASHING_SCHEME_VERSION_V3']);
  });

  it('a preparedTransactionHash that is not the recomputed one: hash printed, then exit 1', async () => {
    const file = response({
      preparedTransaction: vector.preparedTransactionBase64,
      preparedTransactionHash: v3hash.toString('base64'),
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
    });
    for (const cmd of ['hash', 'inspect']) {
      const r = await runCli(['tx', cmd, file], {});
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(vector.expectedHashHex);
      expect(r.stderr).toBe(
        "quill: the prepare response's preparedTransactionHash is not the hash of its preparedTransaction: do not sign it\n",
      );
    }
  });

  it('JSON without a preparedTransaction, or an unknown scheme, is bad input (exit 2)', async () => {
    for (const [fields, message] of [
      [{ preparedTransaction: 42 }, /no base64 preparedTransaction/],
      [{ hashingSchemeVersion: 'V2' }, /no base64 preparedTransaction/],
      [
        {
          preparedTransaction: vector.preparedTransactionBase64,
          hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V9',
        },
        /unknown hashing scheme/,
      ],
    ] as const) {
      const r = await runCli(['tx', 'hash', response(fields)], {});
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toMatch(message);
    }
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"preparedTransaction": ');
    expect((await runCli(['tx', 'hash', broken], {})).stderr).toMatch(/starts with "\{" but is not JSON/);
  });
});

describe('quill submit with a prepare response', () => {
  let wallet: FakeWallet;
  beforeAll(async () => {
    wallet = await startFakeWallet();
  });
  afterAll(async () => {
    await wallet?.close();
  });

  it('forwards preparedTransaction, its hash, scheme and costEstimation; drops the rest', async () => {
    wallet.answer({ status: 200, body: { id: 'sub_X', status: 'committed' } });
    const env = { QUILL_URL: wallet.url, QUILL_TOKEN: 't' };
    const r = await runCli(['submit', '--party', 'alice::1220aa', v3File(), '--wait', '5'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(wallet.seen[0]?.url).toBe('/wallet/v1/submissions?wait=5');
    expect(wallet.seen[0]?.body).toEqual({
      preparedTransaction: encodePreparedTransactionBase64(v3tx),
      preparedTransactionHash: v3hash.toString('base64'),
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3',
      costEstimation,
      party: 'alice::1220aa',
    });
    // A disabled estimate is answered as null: nothing is forwarded for it.
    const noEstimate = response({
      preparedTransaction: vector.preparedTransactionBase64,
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
      costEstimation: null,
    });
    expect((await runCli(['submit', '--party', 'alice::1220aa', noEstimate], env)).code).toBe(0);
    expect(Object.keys(wallet.seen[1]?.body as object).sort()).toEqual([
      'hashingSchemeVersion',
      'party',
      'preparedTransaction',
    ]);
    // A refused request is bad input (exit 2), as before; a rejected record exits 1.
    wallet.answer({
      status: 422,
      body: { error: { code: 'PARTY_MISMATCH', message: 'not the actAs party' } },
    });
    const refused = await runCli(['submit', '--party', 'bob::1220bb', v3File()], env);
    expect([refused.code, refused.stderr]).toEqual([2, 'quill: PARTY_MISMATCH: not the actAs party\n']);
    wallet.answer({
      status: 200,
      body: { id: 'sub_Y', status: 'rejected', error: { code: 'C', message: 'm' } },
    });
    const rejected = await runCli(['submit', '--party', 'alice::1220aa', v3File()], env);
    expect([rejected.code, rejected.stderr]).toEqual([
      1,
      'quill: the submission sub_Y ended rejected: C: m\n',
    ]);
  });
});
