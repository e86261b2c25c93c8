// Building: build → encode → decode → hash round-trips; keys need V3 and V2 refuses them with the
// participant's reason.

import {
  decodePreparedTransaction,
  encodePreparedTransaction,
  hashPreparedTransaction,
  TransactionError,
} from '@quill/canton/transaction';
import { describe, expect, it } from 'vitest';
import { alice, bob, cidA, cidB, pkg, sampleInput, sampleTx } from '../../canton/test/transaction/sample.ts';
import { type BuildKey, buildPreparedTransaction, damlValue as V } from '../src/build/index.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const V2 = 'HASHING_SCHEME_VERSION_V2';
const V3 = 'HASHING_SCHEME_VERSION_V3';

const key: BuildKey = {
  templateId: `${pkg}:Coin:Coin`,
  packageName: 'coin',
  key: V.party(alice),
  hash: new Uint8Array(32).fill(9),
  maintainers: [alice],
};

describe('buildPreparedTransaction', () => {
  it('round-trips through encode → decode with the same hash under V2 and V3', () => {
    const tx = sampleTx();
    const back = decodePreparedTransaction(encodePreparedTransaction(tx));
    for (const s of [V2, V3] as const)
      expect(hex(hashPreparedTransaction(back, s))).toBe(hex(hashPreparedTransaction(tx, s)));
  });
  it('assigns node ids in pre-order and seeds creates and exercises deterministically', () => {
    const tx = sampleTx();
    expect(tx.transaction!.roots).toEqual(['0', '3']);
    expect(tx.transaction!.nodeSeeds.map((s) => s.nodeId)).toEqual([0, 1, 4]);
    expect(hex(hashPreparedTransaction(sampleTx(), V2))).toBe(hex(hashPreparedTransaction(tx, V2)));
  });
  it('sorts party sets and input contracts like the participant', () => {
    const tx = sampleTx({ actAs: [bob, alice, bob] });
    expect(tx.metadata!.submitterInfo!.actAs).toEqual([alice, bob]);
    const n = tx.transaction!.nodes[1]!.versionedNode;
    if (n.oneofKind !== 'v1' || n.v1.nodeType.oneofKind !== 'create') throw new Error('unexpected');
    expect(n.v1.nodeType.create.signatories).toEqual([alice, bob]);
  });
  it('hashes sets order-independently (a permuted proto set hashes the same)', () => {
    const tx = sampleTx();
    const n = tx.transaction!.nodes[1]!.versionedNode;
    if (n.oneofKind !== 'v1' || n.v1.nodeType.oneofKind !== 'create') throw new Error('unexpected');
    const before = hex(hashPreparedTransaction(tx, V2));
    n.v1.nodeType.create.signatories.reverse();
    expect(hex(hashPreparedTransaction(tx, V2))).toBe(before);
  });
  it('refuses invalid input with a TransactionError', () => {
    expect(() => buildPreparedTransaction(sampleInput({ actAs: [] }))).toThrow(TransactionError);
    expect(() => buildPreparedTransaction(sampleInput({ commandId: '' }))).toThrow(TransactionError);
  });
});

describe('contract keys and schemes', () => {
  const keyed = () =>
    buildPreparedTransaction(
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
            key,
            byKey: true,
          },
          {
            kind: 'queryByKey',
            packageName: 'coin',
            templateId: `${pkg}:Coin:Coin`,
            exhaustive: true,
            key,
            result: [cidB],
          },
        ],
      }),
    );
  it('V3 hashes keys, by_key and QueryByKey', () => {
    const tx = keyed();
    expect(tx.transaction!.version).toBe('2');
    expect(hashPreparedTransaction(tx, V3)).toHaveLength(32);
    const back = decodePreparedTransaction(encodePreparedTransaction(tx));
    expect(hex(hashPreparedTransaction(back, V3))).toBe(hex(hashPreparedTransaction(tx, V3)));
  });
  it('V2 refuses LF serialization version 2 nodes with the participant reason', () => {
    try {
      hashPreparedTransaction(keyed(), V2);
      throw new Error('expected refusal');
    } catch (err) {
      expect(err).toBeInstanceOf(TransactionError);
      expect((err as TransactionError).code).toBe('UNSUPPORTED_BY_SCHEME');
      expect((err as Error).message).toContain(
        'Cannot hash node with LF serialization version V2 using hashing scheme V2. Does the transaction use contract keys? Please using hashing scheme V3 or higher.',
      );
    }
  });
  it('keys on an LF 2.1 node are refused whatever the scheme', () => {
    expect(() =>
      buildPreparedTransaction(
        sampleInput({
          roots: [
            {
              kind: 'create',
              contractId: cidB,
              packageName: 'coin',
              templateId: `${pkg}:Coin:Coin`,
              argument: V.unit(),
              signatories: [alice],
              key,
            },
          ],
        }),
      ),
    ).toThrow(/Keys are not supported in nodes with LF Serialization version V1/);
  });
  it('keyed and unkeyed creates hash differently under V3', () => {
    const mk = (k?: BuildKey) =>
      buildPreparedTransaction(
        sampleInput({
          roots: [
            {
              kind: 'create',
              lfVersion: '2',
              contractId: cidB,
              packageName: 'coin',
              templateId: `${pkg}:Coin:Coin`,
              argument: V.unit(),
              signatories: [alice],
              key: k,
            },
          ],
        }),
      );
    expect(hex(hashPreparedTransaction(mk(key), V3))).not.toBe(hex(hashPreparedTransaction(mk(), V3)));
  });
});
