// Preview: what a signature authorizes, readable and JSON-safe; deep transactions need no recursion.

import { type BuildNode, buildPreparedTransaction, damlValue as V } from '@quill/sandbox/build';
import { describe, expect, it } from 'vitest';
import {
  decodePreparedTransaction,
  encodePreparedTransaction,
  hashPreparedTransaction,
  microsToIso,
  previewPreparedTransaction,
  renderValue,
} from '../../src/transaction/index.ts';
import { alice, bob, cidA, cidB, pkg, sampleInput, sampleTx } from './sample.ts';

describe('renderValue', () => {
  it('renders every kind without lossy numbers', () => {
    const v = V.record({
      i: V.int64(2n ** 60n),
      n: V.numeric('0.1000000000'),
      t: V.timestamp(1729788226000001n),
      d: V.date(20020),
      p: V.party(alice),
      c: V.contractId(cidA),
      o: V.optional(V.optional(V.text('x'))),
      none: V.optional(),
      l: V.list([V.bool(true), V.unit()]),
      m: V.textMap({ a: V.text('b') }),
      g: V.genMap([[V.int64(1n), V.text('one')]]),
      v: V.variant('Some', V.int64(5n)),
      e: V.enum('Red'),
    });
    expect(renderValue(v)).toEqual({
      i: '1152921504606846976',
      n: '0.1000000000',
      t: '2024-10-24T16:43:46.000001Z',
      d: '2024-10-24',
      p: alice,
      c: cidA,
      o: ['x'],
      none: null,
      l: [true, {}],
      m: { a: 'b' },
      g: [['1', 'one']],
      v: { tag: 'Some', value: '5' },
      e: 'Red',
    });
  });
  it('formats micros as ISO with only the digits needed', () => {
    expect(microsToIso(0n)).toBe('1970-01-01T00:00:00.000Z');
    expect(microsToIso(1500n)).toBe('1970-01-01T00:00:00.001500Z');
    expect(microsToIso(-1n)).toBe('1969-12-31T23:59:59.999999Z');
  });
});

describe('previewPreparedTransaction', () => {
  const tx = sampleTx();
  const p = previewPreparedTransaction(tx, 'HASHING_SCHEME_VERSION_V3');
  it('shows the signed metadata and the hash it would sign', () => {
    expect(p).toMatchObject({
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3',
      hash: Buffer.from(hashPreparedTransaction(tx, 'HASHING_SCHEME_VERSION_V3')).toString('hex'),
      actAs: [alice],
      commandId: 'cmd-1',
      synchronizerId: 'global-domain::1220cccc',
      preparationTime: '2024-10-24T16:43:46.000Z',
      maxRecordTime: '2024-10-24T16:44:46.000Z',
      maxRecordTimeSigned: true,
      minLedgerEffectiveTime: null,
      nodeCount: 5,
    });
    expect(p.parties).toEqual([alice, bob]);
  });
  it('shows every node with template, choice, parties and arguments', () => {
    expect(p.roots).toEqual(['0', '3']);
    expect(p.nodes.map((n) => [n.nodeId, n.kind, n.parentId, n.depth])).toEqual([
      ['0', 'exercise', null, 0],
      ['1', 'create', '0', 1],
      ['2', 'fetch', '0', 1],
      ['3', 'rollback', null, 0],
      ['4', 'create', '3', 1],
    ]);
    const [ex, child, , rb] = p.nodes;
    expect(ex).toMatchObject({
      kind: 'exercise',
      templateId: `${pkg}:Coin:Coin`,
      contractId: cidA,
      choice: 'Transfer',
      consuming: true,
      actingParties: [alice],
      choiceArgument: { newOwner: bob, amount: '4.0000000000' },
      exerciseResult: cidB,
    });
    expect(ex!.children).toEqual(['1', '2']);
    expect(child).toMatchObject({ contractId: cidB, argument: { owner: bob, amount: '4.0000000000' } });
    expect(rb).toMatchObject({ kind: 'rollback', children: ['4'] });
    expect(p.inputContracts).toEqual([
      expect.objectContaining({
        contractId: cidA,
        createdAt: '2024-10-24T16:43:46.000Z',
        argument: { owner: alice, amount: '10.0000000000' },
      }),
    ]);
  });
  it('says max record time is not signed under V2', () => {
    expect(previewPreparedTransaction(tx, 'HASHING_SCHEME_VERSION_V2').maxRecordTimeSigned).toBe(false);
  });
});

describe('deep transactions', () => {
  it('builds, decodes, hashes and previews a 10,000-deep chain of exercises', () => {
    let node: BuildNode = {
      kind: 'fetch',
      contractId: cidA,
      packageName: 'coin',
      templateId: `${pkg}:Coin:Coin`,
      signatories: [alice],
      actingParties: [alice],
    };
    for (let i = 0; i < 10_000; i++) {
      node = {
        kind: 'exercise',
        contractId: cidA,
        packageName: 'coin',
        templateId: `${pkg}:Coin:Coin`,
        choice: 'Step',
        choiceArgument: V.int64(BigInt(i)),
        consuming: false,
        actingParties: [alice],
        signatories: [alice],
        children: [node],
      };
    }
    const tx = buildPreparedTransaction(sampleInput({ roots: [node] }));
    const back = decodePreparedTransaction(encodePreparedTransaction(tx));
    expect(hashPreparedTransaction(back, 'HASHING_SCHEME_VERSION_V2')).toHaveLength(32);
    const p = previewPreparedTransaction(back, 'HASHING_SCHEME_VERSION_V2');
    expect(p.nodeCount).toBe(10_001);
    expect(p.nodes[10_000]!.depth).toBe(10_000);
    expect(JSON.parse(JSON.stringify(p)).nodes).toHaveLength(10_001);
  });
});
