// The decoder's strictness and the encoder's refusals, on bytes assembled field by field.
import { describe, expect, it } from 'vitest';
import {
  decodeTopologyTransaction,
  encodeTopologyTransaction,
  hex,
  type NamespaceDelegation,
  TopologyError,
  type TopologyTransaction,
  topologyMultiHash,
} from '../../src/topology/index.ts';
import { TransactionError, topologyMultiHash as transactionMultiHash } from '../../src/transaction/index.ts';

// A tiny protobuf assembler: enough to write what our encoder never would.
function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}
const vi = (no: number, n: number) => [...varint(no * 8), ...varint(n)];
const ld = (no: number, payload: number[]) => [...varint(no * 8 + 2), ...varint(payload.length), ...payload];
const str = (no: number, s: string) => ld(no, [...Buffer.from(s)]);
const wrap = (tx: number[], version = 30) => new Uint8Array([...ld(1, tx), ...vi(2, version)]);

const PARTY = `alice::1220${'ab'.repeat(32)}`;
const HOST = `p1::1220${'cd'.repeat(32)}`;
const host = (permission = 2, extra: number[] = []) =>
  ld(3, [...str(1, HOST), ...vi(2, permission), ...extra]);
const p2p = (fields: number[]) => ld(9, fields);
const tx = (mapping: number[], head: number[] = [...vi(1, 1), ...vi(2, 1)]) => [...head, ...ld(3, mapping)];
const goodP2p = [...str(1, PARTY), ...vi(2, 1), ...host()];
const spki = [
  0x30,
  0x2a,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x70,
  0x03,
  0x21,
  0x00,
  ...new Array(32).fill(9),
];
const key = (usage: number[]) => [...vi(2, 4), ...ld(3, spki), ...usage, ...vi(6, 1)];

function refusal(bytes: Uint8Array): string {
  try {
    decodeTopologyTransaction(bytes);
  } catch (err) {
    expect(err).toBeInstanceOf(TopologyError);
    expect((err as TopologyError).code).toBe('MALFORMED');
    return (err as TopologyError).message;
  }
  throw new Error('decoded');
}

describe('decodeTopologyTransaction', () => {
  it('reads the assembled baseline', () => {
    const out = decodeTopologyTransaction(wrap(tx(p2p(goodP2p))));
    expect(out).toEqual({
      operation: 'add-replace',
      serial: 1,
      mapping: {
        kind: 'party-to-participant',
        party: PARTY,
        threshold: 1,
        participants: [{ uid: HOST, permission: 'confirmation' }],
      },
    });
  });

  it('refuses another version, a missing data field, bad enums and zero values', () => {
    expect(refusal(wrap(tx(p2p(goodP2p)), 31))).toMatch(/version is 31/);
    expect(refusal(new Uint8Array(vi(2, 30)))).toMatch(/data is missing/);
    expect(refusal(wrap(tx(p2p(goodP2p), [...vi(1, 3), ...vi(2, 1)])))).toMatch(/operation/);
    expect(refusal(wrap(tx(p2p(goodP2p), [...vi(2, 1)])))).toMatch(/operation/);
    expect(refusal(wrap(tx(p2p(goodP2p), [...vi(1, 1)])))).toMatch(/serial 0/);
    expect(refusal(wrap(tx(p2p(goodP2p), [...vi(1, 1), ...vi(2, 0x80000000)])))).toMatch(/serial/);
    expect(refusal(wrap(tx(p2p([...str(1, PARTY), ...vi(2, 1), ...host(4)]))))).toMatch(/permission/);
    expect(refusal(wrap(tx(p2p([...str(1, PARTY), ...vi(2, 1), ...host(0)]))))).toMatch(/permission/);
    expect(refusal(wrap(tx(p2p([...str(1, PARTY), ...host()]))))).toMatch(/threshold 0/);
    expect(refusal(wrap(tx(p2p([...vi(2, 1), ...host()]))))).toMatch(/party is empty/);
  });

  it('refuses mapping kinds it does not model, and a mapping with two kinds', () => {
    const dnd = ld(3, [...str(1, `1220${'00'.repeat(32)}`), ...vi(2, 1)]);
    expect(refusal(wrap(tx(dnd)))).toMatch(/decentralized_namespace_definition/);
    expect(refusal(wrap(tx(ld(16, []))))).toMatch(/party_to_key_mapping/);
    expect(refusal(wrap(tx(ld(42, []))))).toMatch(/field 42/);
    expect(refusal(wrap(tx([])))).toMatch(/no mapping/);
    expect(refusal(wrap([...vi(1, 1), ...vi(2, 1)]))).toMatch(/mapping is missing/);
    expect(refusal(wrap(tx([...p2p(goodP2p), ...ld(1, [])])))).toMatch(/several/);
  });

  it('refuses wrong wire types, repeated singular fields, groups, truncation and bad UTF-8', () => {
    expect(refusal(wrap(tx(p2p(goodP2p), [...vi(1, 1), ...ld(2, [1])])))).toMatch(/serial.*wire type/);
    expect(refusal(wrap(tx(p2p([...vi(1, 5), ...vi(2, 1), ...host()]))))).toMatch(/party.*wire type/);
    expect(refusal(wrap(tx(p2p(goodP2p), [...vi(1, 1), ...vi(2, 1), ...vi(2, 2)])))).toMatch(
      /appears 2 times/,
    );
    expect(refusal(new Uint8Array([...wrap(tx(p2p(goodP2p))), 0x0b]))).toMatch(/group/);
    expect(refusal(new Uint8Array([0x0a, 0x05, 0x08]))).toMatch(/truncated/);
    expect(refusal(new Uint8Array([0x10, 0xff]))).toMatch(/truncated varint/);
    expect(refusal(new Uint8Array([0x10, ...new Array(10).fill(0xff), 0x01]))).toMatch(/64 bits|10 bytes/);
    expect(refusal(wrap(tx(p2p([...ld(1, [0xc3, 0x28]), ...vi(2, 1), ...host()]))))).toMatch(/UTF-8/);
    expect(refusal(new Uint8Array([0x00]))).toMatch(/field number 0/);
  });

  it('skips unknown fields, reads the onboarding flag and the key usages packed or not', () => {
    const withUnknown = [...goodP2p, ...vi(15, 7), ...ld(14, [1, 2, 3])];
    const extraTx = [...vi(1, 1), ...vi(2, 1), ...vi(9, 1)];
    const a = decodeTopologyTransaction(wrap(tx(p2p(withUnknown), extraTx)));
    expect(a).toEqual(decodeTopologyTransaction(wrap(tx(p2p(goodP2p)))));

    const onboarding = decodeTopologyTransaction(
      wrap(tx(p2p([...str(1, PARTY), ...vi(2, 1), ...host(3, ld(3, vi(1, 1)))]))),
    );
    expect(onboarding.mapping).toMatchObject({
      participants: [{ permission: 'observation', onboarding: true }],
    });

    const keys = (usage: number[]) => ld(6, [...ld(1, key(usage)), ...vi(2, 1)]);
    const packed = decodeTopologyTransaction(wrap(tx(p2p([...goodP2p, ...keys(ld(5, [1, 4, 5]))]))));
    const unpacked = decodeTopologyTransaction(
      wrap(tx(p2p([...goodP2p, ...keys([...vi(5, 1), ...vi(5, 4), ...vi(5, 5)])]))),
    );
    const mixed = decodeTopologyTransaction(
      wrap(tx(p2p([...goodP2p, ...keys([...vi(5, 1), ...ld(5, [4, 5])])]))),
    );
    expect(unpacked).toEqual(packed);
    expect(mixed).toEqual(packed);
    expect(packed.mapping).toMatchObject({
      signingKeys: { threshold: 1, keys: [{ usage: ['namespace', 'protocol', 'proof-of-ownership'] }] },
    });
    // Our encoder writes the packed form (as Canton does).
    expect(hex(encodeTopologyTransaction(unpacked))).toBe(
      hex(wrap(tx(p2p([...goodP2p, ...keys(ld(5, [1, 4, 5]))])))),
    );
    // Canton would read an empty usage list as every usage; it never writes one, and neither direction accepts it.
    expect(refusal(wrap(tx(p2p([...goodP2p, ...keys([])]))))).toMatch(/usage is empty/);
    expect(refusal(wrap(tx(p2p([...goodP2p, ...keys(ld(5, [4, 1, 4]))]))))).toMatch(/usage repeats/);
  });

  it('refuses bad keys', () => {
    const withKey = (k: number[], threshold = 1) =>
      wrap(tx(p2p([...goodP2p, ...ld(6, [...ld(1, k), ...vi(2, threshold)])])));
    expect(refusal(withKey([...vi(2, 3), ...ld(3, spki), ...vi(6, 1)]))).toMatch(/format is 3/);
    expect(refusal(withKey([...ld(3, spki), ...vi(6, 1)]))).toMatch(/format is 0/);
    expect(refusal(withKey([...vi(2, 4), ...vi(6, 1)]))).toMatch(/public_key is empty/);
    expect(refusal(withKey([...vi(2, 4), ...ld(3, spki), ...vi(6, 5)]))).toMatch(/key_spec/);
    expect(refusal(withKey([...vi(2, 4), ...ld(3, spki)]))).toMatch(/key_spec/);
    expect(refusal(withKey(key(ld(5, [2]))))).toMatch(/usage has unknown value 2/);
    expect(refusal(withKey(key(ld(5, [0]))))).toMatch(/usage has unknown value 0/);
    expect(refusal(withKey(key(ld(5, [4])), 0))).toMatch(/threshold 0/);
    expect(refusal(wrap(tx(p2p([...goodP2p, ...ld(6, vi(2, 1))]))))).toMatch(/keys is empty/);
  });

  it('reads NamespaceDelegation restrictions, including the is_root_delegation fallback', () => {
    const ns = `1220${'ef'.repeat(32)}`;
    const nsd = (rest: number[]) => wrap(tx(ld(1, [...str(1, ns), ...ld(2, key(ld(5, [1]))), ...rest])));
    const restriction = (b: Uint8Array) =>
      (decodeTopologyTransaction(b).mapping as NamespaceDelegation).restriction;
    expect(restriction(nsd(ld(4, [])))).toEqual({ kind: 'all' });
    expect(restriction(nsd(ld(5, [])))).toEqual({ kind: 'all-but-namespace-delegations' });
    expect(restriction(nsd(ld(6, ld(1, [9, 1]))))).toEqual({ kind: 'specific', mappings: [9, 1] });
    expect(restriction(nsd(ld(6, [...vi(1, 9), ...vi(1, 18)])))).toEqual({
      kind: 'specific',
      mappings: [9, 18],
    });
    // NamespaceDelegation.fromProtoV30: no restriction → is_root_delegation decides.
    expect(restriction(nsd(vi(3, 1)))).toEqual({ kind: 'all' });
    expect(restriction(nsd([]))).toEqual({ kind: 'all-but-namespace-delegations' });
    expect(refusal(nsd([...vi(3, 1), ...ld(5, [])]))).toMatch(/is_root_delegation/);
    expect(refusal(nsd([...ld(4, []), ...ld(5, [])]))).toMatch(/several restrictions/);
    expect(refusal(nsd(ld(6, [])))).toMatch(/mappings is empty/);
    expect(refusal(nsd(ld(6, ld(1, [10]))))).toMatch(/unknown mapping code 10/);
    expect(refusal(nsd(ld(6, ld(1, [9, 9]))))).toMatch(/repeats a mapping code/);
    expect(refusal(nsd(vi(3, 2)))).toMatch(/not a bool/);
    expect(refusal(wrap(tx(ld(1, [...str(1, ns), ...ld(4, [])]))))).toMatch(/target_key is missing/);
  });

  it('refuses what is not bytes', () => {
    expect(() => decodeTopologyTransaction('0a00' as unknown as Uint8Array)).toThrow(TopologyError);
  });
});

describe('encodeTopologyTransaction refusals', () => {
  const base: TopologyTransaction = {
    operation: 'add-replace',
    serial: 1,
    mapping: {
      kind: 'party-to-participant',
      party: PARTY,
      threshold: 1,
      participants: [{ uid: HOST, permission: 'confirmation' }],
    },
  };
  const edKey = {
    spki: new Uint8Array(spki),
    keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' as const,
    usage: ['protocol' as const],
  };
  const cases: [string, unknown][] = [
    ['serial 0', { ...base, serial: 0 }],
    ['serial above int32', { ...base, serial: 2 ** 31 }],
    ['fractional serial', { ...base, serial: 1.5 }],
    ['unknown operation', { ...base, operation: 'replace' }],
    ['unknown mapping', { ...base, mapping: { kind: 'owner-to-key' } }],
    ['threshold 0', { ...base, mapping: { ...base.mapping, threshold: 0 } }],
    ['empty party', { ...base, mapping: { ...base.mapping, party: '' } }],
    ['lone surrogate', { ...base, mapping: { ...base.mapping, party: 'a\uD800' } }],
    [
      'bad permission',
      { ...base, mapping: { ...base.mapping, participants: [{ uid: HOST, permission: 'admin' }] } },
    ],
    ['no keys', { ...base, mapping: { ...base.mapping, signingKeys: { keys: [], threshold: 1 } } }],
    [
      'key threshold 0',
      { ...base, mapping: { ...base.mapping, signingKeys: { keys: [edKey], threshold: 0 } } },
    ],
    [
      'empty usage',
      {
        ...base,
        mapping: { ...base.mapping, signingKeys: { keys: [{ ...edKey, usage: [] }], threshold: 1 } },
      },
    ],
    [
      'repeated usage',
      {
        ...base,
        mapping: {
          ...base.mapping,
          signingKeys: { keys: [{ ...edKey, usage: ['protocol', 'protocol'] }], threshold: 1 },
        },
      },
    ],
    [
      'unknown key spec',
      {
        ...base,
        mapping: { ...base.mapping, signingKeys: { keys: [{ ...edKey, keySpec: 'RSA' }], threshold: 1 } },
      },
    ],
    [
      'empty spki',
      {
        ...base,
        mapping: {
          ...base.mapping,
          signingKeys: { keys: [{ ...edKey, spki: new Uint8Array() }], threshold: 1 },
        },
      },
    ],
    [
      'empty specific',
      {
        ...base,
        mapping: {
          kind: 'namespace-delegation',
          namespace: 'n',
          targetKey: edKey,
          restriction: { kind: 'specific', mappings: [] },
        },
      },
    ],
    [
      'unknown code',
      {
        ...base,
        mapping: {
          kind: 'namespace-delegation',
          namespace: 'n',
          targetKey: edKey,
          restriction: { kind: 'specific', mappings: [10] },
        },
      },
    ],
    [
      'unknown restriction',
      {
        ...base,
        mapping: {
          kind: 'namespace-delegation',
          namespace: 'n',
          targetKey: edKey,
          restriction: { kind: 'some' },
        },
      },
    ],
  ];
  it.each(cases)('refuses %s as INVALID', (_name, value) => {
    expect(() => encodeTopologyTransaction(value as TopologyTransaction)).toThrow(
      expect.objectContaining({ name: 'TopologyError', code: 'INVALID' }),
    );
  });

  it('topologyMultiHash speaks TopologyError here and TransactionError through @quill/canton/transaction', () => {
    expect(() => topologyMultiHash([])).toThrow(
      expect.objectContaining({ name: 'TopologyError', code: 'INVALID' }),
    );
    expect(() => transactionMultiHash([])).toThrow(TransactionError);
  });
});
