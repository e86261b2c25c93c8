// The single-pass canonical decoder against the reference path (protobuf-ts with unknown fields refused,
// re-encode and byte compare, validation): valid and arbitrary schema-shaped transactions decode to the
// same tree (prototypes included) and hash the same; mutated bytes (bit flips, truncations, appended or
// duplicated or reordered or unknown fields, non-minimal varints, wrong wire types, bad UTF-8) are
// accepted iff the reference accepts them, and refused with the same error (class, code and message).
import type { IMessageType } from '@protobuf-ts/runtime';
import { type BuildNode, buildPreparedTransaction, damlValue as V } from '@quill/sandbox/build';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCanonical } from '../../src/transaction/canonical-reader.ts';
import { decodeStrict } from '../../src/transaction/codec.ts';
import {
  decodePreparedTransaction,
  type HashingSchemeVersion,
  hashPreparedTransaction,
  type TransactionError,
} from '../../src/transaction/index.ts';
import { PreparedTransaction } from '../../src/transaction/types.ts';
import { FastBinaryReader } from '../../src/transaction/wire-reader.ts';
import { FastBinaryWriter } from '../../src/transaction/wire-writer.ts';
import { buildInput } from './arbitraries.ts';
import { alice, cidB, pkg, sampleTx } from './sample.ts';

const sampleCreate: BuildNode = {
  kind: 'create',
  contractId: cidB,
  packageName: 'coin',
  templateId: `${pkg}:Coin:Coin`,
  argument: V.unit(),
  signatories: [alice],
};

/** Thousands of decodes each, on a shared machine: more than the default 30 s. */
const SLOW = 180_000;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const schemes: HashingSchemeVersion[] = ['HASHING_SCHEME_VERSION_V2', 'HASHING_SCHEME_VERSION_V3'];

/** The reference parse alone (no validation): the tree, or undefined if it refuses or is not canonical. */
function referenceParse(bytes: Uint8Array): PreparedTransaction | undefined {
  let tx: PreparedTransaction;
  try {
    tx = PreparedTransaction.fromBinary(bytes, {
      readUnknownField: 'throw',
      readerFactory: (b) => new FastBinaryReader(b),
    });
  } catch {
    return undefined;
  }
  const w = new FastBinaryWriter();
  PreparedTransaction.internalBinaryWrite(tx, w, { writeUnknownFields: false, writerFactory: () => w });
  return w.equals(bytes) ? tx : undefined;
}

type Outcome = { ok: PreparedTransaction } | { err: string };
function outcome(f: () => PreparedTransaction): Outcome {
  try {
    return { ok: f() };
  } catch (err) {
    const e = err as Error;
    return { err: `${e.constructor.name} ${(e as TransactionError).code} ${e.message}` };
  }
}

function hashes(tx: PreparedTransaction): string[] {
  return schemes.map((s) => {
    try {
      return hex(hashPreparedTransaction(tx, s));
    } catch (err) {
      return (err as TransactionError).code;
    }
  });
}

/** The new path must agree with the reference on `bytes`, in every respect. */
function agree(bytes: Uint8Array): void {
  const fast = decodeCanonical(bytes);
  const ref = referenceParse(bytes);
  if (fast !== undefined) {
    // never more lenient than the reference, and the very same tree
    expect(ref).toBeDefined();
    expect(fast).toStrictEqual(ref);
  }
  const ours = outcome(() => decodePreparedTransaction(bytes));
  const theirs = outcome(() => decodeStrict(bytes));
  expect(ours).toStrictEqual(theirs);
  if ('ok' in ours && 'ok' in theirs) expect(hashes(ours.ok)).toEqual(hashes(theirs.ok));
}

// ---- arbitrary schema-shaped messages, from protobuf-ts's reflection information ----

const MAX_DEPTH = 5;
const text = fc.oneof(
  fc.constantFrom('', 'a', 'alice::1220aa', '2.1', '2', 'dev', '0', '1', 'é', '\u{feff}x', '\u{1f600}'),
  fc.string({ maxLength: 12 }),
  fc.string({ maxLength: 6, unit: 'binary' }),
);
const int64s = fc.oneof(
  fc.constantFrom(0n, 1n, -1n, (1n << 63n) - 1n, -(1n << 63n), 1n << 53n, -(1n << 53n)),
  fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }),
);
const uint64s = fc.oneof(
  fc.constantFrom(0n, 1n, (1n << 64n) - 1n, 1n << 63n, 253402300799999999n),
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
);
const int32s = fc.oneof(
  fc.constantFrom(0, 1, -1, 0x7fffffff, -0x80000000, 127, 128, -719162),
  fc.integer({ min: -0x80000000, max: 0x7fffffff }),
);
const uint32s = fc.oneof(
  fc.constantFrom(0, 1, 0xffffffff, 127, 128),
  fc.integer({ min: 0, max: 0xffffffff }),
);

function scalar(t: number): fc.Arbitrary<unknown> {
  switch (t) {
    case 9:
      return text;
    case 8:
      return fc.boolean();
    case 18:
    case 16:
    case 3:
      return int64s;
    case 4:
      return uint64s;
    case 5:
      return int32s;
    case 13:
      return uint32s;
    case 12:
      return fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.constant(new Uint8Array(32).fill(7)));
    default:
      throw new Error(`scalar type ${t} not in the schema`);
  }
}

const cache = new Map<string, fc.Arbitrary<object>>();
function message(type: IMessageType<object>, depth: number): fc.Arbitrary<object> {
  const key = `${type.typeName}@${depth}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const parts: fc.Arbitrary<[string, unknown] | undefined>[] = [];
  const oneofs = new Map<string, fc.Arbitrary<unknown>[]>();
  for (const f of type.fields) {
    let a: fc.Arbitrary<unknown>;
    if (f.kind === 'scalar') a = scalar(f.T);
    else if (f.kind === 'message') {
      if (depth >= MAX_DEPTH) continue;
      a = fc.constant(null).chain(() => message(f.T() as IMessageType<object>, depth + 1));
    } else throw new Error(`field kind ${f.kind} not in the schema`);
    if (f.oneof !== undefined) {
      const list = oneofs.get(f.oneof) ?? [];
      list.push(a.map((v) => ({ oneofKind: f.localName, [f.localName]: v })));
      oneofs.set(f.oneof, list);
      continue;
    }
    const v = f.repeat ? fc.array(a, { maxLength: depth < 2 ? 4 : 2 }) : a;
    parts.push(
      fc.option(v, { nil: undefined, freq: 2 }).map((x) => (x === undefined ? undefined : [f.localName, x])),
    );
  }
  for (const [name, members] of oneofs) {
    parts.push(
      fc
        .option(fc.oneof(...members), { nil: undefined, freq: 4 })
        .map((x) => (x === undefined ? undefined : [name, x])),
    );
  }
  const arb = fc
    .tuple(...parts)
    .map((kv) => type.create(Object.fromEntries(kv.filter((x) => x !== undefined)) as never) as object);
  cache.set(key, arb);
  return arb;
}

const schemaTransaction = message(PreparedTransaction as IMessageType<object>, 0).map((tx) =>
  PreparedTransaction.toBinary(tx as PreparedTransaction, { writeUnknownFields: false }),
);
const validTransaction = buildInput.map((input) =>
  PreparedTransaction.toBinary(buildPreparedTransaction(input), { writeUnknownFields: false }),
);

// ---- a wire-level view of a message, to mutate fields deep inside ----

interface Field {
  tag: number;
  /** varint: the varint's bytes; fixed: the bytes; length-delimited: the payload */
  data: Uint8Array;
  sub?: Field[];
  /** extra non-minimal continuation bytes on the tag / length / varint */
  padTag?: number;
  padLen?: number;
}

function readVarint(b: Uint8Array, p: number): [number, number] | undefined {
  let v = 0;
  for (let i = 0; i < 5; i++) {
    if (p >= b.length) return undefined;
    const x = b[p++]!;
    v += (x & 0x7f) * 2 ** (7 * i);
    if (x < 0x80) return [v, p];
  }
  return undefined;
}

/** Parses `b` as message fields, or undefined if it is not cleanly one (then it stays opaque bytes). */
function parse(b: Uint8Array, depth = 0): Field[] | undefined {
  const out: Field[] = [];
  let p = 0;
  while (p < b.length) {
    const t = readVarint(b, p);
    if (t === undefined || t[0] >>> 3 === 0) return undefined;
    const [tag, q] = t;
    p = q;
    switch (tag & 7) {
      case 0: {
        const s = p;
        while (p < b.length && b[p]! >= 0x80) p++;
        if (p >= b.length || p - s > 9) return undefined;
        p++;
        out.push({ tag, data: b.subarray(s, p) });
        break;
      }
      case 1:
        if (p + 8 > b.length) return undefined;
        out.push({ tag, data: b.subarray(p, p + 8) });
        p += 8;
        break;
      case 2: {
        const l = readVarint(b, p);
        if (l === undefined || l[1] + l[0] > b.length) return undefined;
        const data = b.subarray(l[1], l[1] + l[0]);
        p = l[1] + l[0];
        const sub = depth < 40 && data.length > 0 ? parse(data, depth + 1) : undefined;
        out.push(sub === undefined ? { tag, data } : { tag, data, sub });
        break;
      }
      default:
        return undefined;
    }
  }
  return out;
}

function varint(v: number, pad = 0): number[] {
  const out: number[] = [];
  do {
    let x = v % 128;
    v = Math.floor(v / 128);
    if (v > 0 || pad > 0) x |= 0x80;
    out.push(x);
  } while (v > 0);
  for (let i = 0; i < pad; i++) out.push(i === pad - 1 ? 0 : 0x80);
  return out;
}

function serialize(fields: Field[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const f of fields) {
    parts.push(Uint8Array.from(varint(f.tag, f.padTag)));
    if ((f.tag & 7) === 2) {
      const payload = f.sub === undefined ? f.data : serialize(f.sub);
      parts.push(Uint8Array.from(varint(payload.length, f.padLen)), payload);
    } else parts.push(f.data);
  }
  return Buffer.concat(parts);
}

/** Every field of the tree, with the list (message) it sits in. */
interface Site {
  list: Field[];
  index: number;
}
function sites(fields: Field[], out: Site[] = []): Site[] {
  fields.forEach((f, index) => {
    out.push({ list: fields, index });
    if (f.sub !== undefined) sites(f.sub, out);
  });
  return out;
}

const varintValues = [
  [0x00],
  [0x01],
  [0x02],
  [0x7f],
  [0x80, 0x01],
  [0x80, 0x00],
  [0x81, 0x80, 0x00],
  [0xff, 0xff, 0xff, 0xff, 0x0f],
  [0xff, 0xff, 0xff, 0xff, 0x1f],
  [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
  [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
  [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
  [0x80, 0x80, 0x80, 0x80, 0xf8, 0xff, 0xff, 0xff, 0xff, 0x01],
].map((x) => Uint8Array.from(x));

type Edit = { kind: number; at: number; i: number; j: number; n: number; bytes: Uint8Array };
const edit: fc.Arbitrary<Edit> = fc.record({
  // value replacement, reordering and repetition weighted up: the defects a decoder most easily lets by
  kind: fc.oneof(fc.integer({ min: 0, max: 14 }), fc.constantFrom(0, 1, 6, 6, 6, 12)),
  at: fc.nat(),
  i: fc.nat(),
  j: fc.nat(),
  n: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constantFrom(1000, 1001, 1002, 1003, 127, 128, 2 ** 28)),
  bytes: fc.oneof(
    fc.uint8Array({ maxLength: 12 }),
    fc.constantFrom(
      new Uint8Array(0),
      Uint8Array.of(0xff),
      Uint8Array.of(0xc3, 0xa9),
      Uint8Array.of(0xed, 0xa0, 0x80),
      Uint8Array.of(0xc0, 0x80),
      Uint8Array.of(0xef, 0xbb, 0xbf),
      Uint8Array.of(0x61, 0x80),
      ...varintValues,
    ),
  ),
});

const isLen = (f: Field) => (f.tag & 7) === 2;
const isVarint = (f: Field) => (f.tag & 7) === 0;

/** Applies one structural edit to a random field of the tree (of the kind the edit applies to). */
function mutate(fields: Field[], e: Edit): void {
  const want = [5, 8, 9, 13].includes(e.kind) ? isLen : [6, 12].includes(e.kind) ? isVarint : undefined;
  const all = sites(fields).filter((s) => want === undefined || want(s.list[s.index]!));
  if (all.length === 0) {
    if (e.kind === 3) fields.push(newField(e));
    return;
  }
  const { list: m, index: k } = all[e.at % all.length]!;
  const f = m[k]!;
  const copy = (): Field => ({ ...f, sub: f.sub && structuredClone(f.sub) });
  switch (e.kind) {
    case 0: // swap with the next field (reordering)
      if (k + 1 < m.length) {
        m[k] = m[k + 1]!;
        m[k + 1] = f;
      }
      break;
    case 1: // a field repeated right after itself
      m.splice(k + 1, 0, copy());
      break;
    case 2: // a field dropped
      m.splice(k, 1);
      break;
    case 3: // a new field: any number, any wire type, arbitrary payload
      m.splice(k + (e.j % 2), 0, newField(e));
      break;
    case 4: // non-minimal tag
      f.padTag = 1 + (e.n % 3);
      break;
    case 5: // non-minimal length
      f.padLen = 1 + (e.n % 3);
      break;
    case 6: // a varint's value replaced (default, non-minimal, out of range, ten bytes)
      f.data = e.i % 3 === 0 ? varintBytes(e.bytes) : varintValues[e.j % varintValues.length]!;
      break;
    case 7: // another wire type under the same field number
      f.tag = (f.tag & ~7) | [0, 1, 2, 5, 3][e.n % 5]!;
      delete f.sub;
      break;
    case 8: // a length-delimited payload replaced (invalid or non-ASCII UTF-8, empty, random)
      f.data = e.bytes;
      delete f.sub;
      break;
    case 9: // a length-delimited payload extended with a random tail
      f.data = Buffer.concat([f.sub === undefined ? f.data : serialize(f.sub), e.bytes]);
      delete f.sub;
      break;
    case 10: // a field renumbered
      f.tag = (e.n << 3) | (f.tag & 7);
      break;
    case 11: // a field moved within its message
      m.splice(k, 1);
      m.splice(e.j % (m.length + 1), 0, f);
      break;
    case 12: {
      // a varint's value made non-minimal
      const d = Array.from(f.data);
      d[d.length - 1]! |= 0x80;
      d.push(...Array(e.n % 4).fill(0x80), 0);
      f.data = Uint8Array.from(d);
      break;
    }
    case 13: // a message emptied
      f.sub = [];
      break;
    default: // a field repeated elsewhere in its message
      m.splice(e.j % (m.length + 1), 0, copy());
  }
}

function varintBytes(b: Uint8Array): Uint8Array {
  const d = Array.from(b.length === 0 ? [0] : b).slice(0, 10);
  for (let i = 0; i < d.length - 1; i++) d[i]! |= 0x80;
  d[d.length - 1]! &= 0x7f;
  return Uint8Array.from(d);
}

function newField(e: Edit): Field {
  const wt = [0, 1, 2, 5][e.i % 4]!;
  const tag = ((e.n || 1) * 8 + wt) >>> 0;
  if (wt === 0) return { tag, data: varintBytes(e.bytes) };
  if (wt === 1) return { tag, data: new Uint8Array(8).fill(e.j & 0xff) };
  if (wt === 5) return { tag, data: new Uint8Array(4).fill(e.j & 0xff) };
  return { tag, data: e.bytes };
}

type Raw = { kind: number; at: number; bit: number; bytes: Uint8Array };
const raw: fc.Arbitrary<Raw> = fc.record({
  kind: fc.integer({ min: 0, max: 3 }),
  at: fc.nat(),
  bit: fc.integer({ min: 0, max: 7 }),
  bytes: fc.uint8Array({ minLength: 1, maxLength: 6 }),
});

function rawMutate(b: Uint8Array, r: Raw): Uint8Array {
  const at = b.length === 0 ? 0 : r.at % b.length;
  switch (r.kind) {
    case 0: {
      const c = new Uint8Array(b);
      if (c.length > 0) c[at]! ^= 1 << r.bit;
      return c;
    }
    case 1:
      return b.subarray(0, at);
    case 2:
      return Buffer.concat([b, r.bytes]);
    default:
      return Buffer.concat([b.subarray(0, at), r.bytes, b.subarray(at)]);
  }
}

describe('canonical single-pass decoder against protobuf-ts', () => {
  it(
    'valid transactions: the same tree, the same hashes, and never the slow path',
    () => {
      fc.assert(
        fc.property(validTransaction, (bytes) => {
          const fast = decodeCanonical(bytes);
          expect(fast).toBeDefined();
          expect(fast).toStrictEqual(referenceParse(bytes));
          agree(bytes);
        }),
        { numRuns: 200 },
      );
    },
    SLOW,
  );

  it(
    'arbitrary schema-shaped messages (keys, extreme numbers, any strings): the same tree',
    () => {
      fc.assert(
        fc.property(schemaTransaction, (bytes) => {
          const fast = decodeCanonical(bytes);
          expect(fast).toBeDefined();
          expect(fast).toStrictEqual(referenceParse(bytes));
          agree(bytes);
        }),
        { numRuns: 400 },
      );
    },
    SLOW,
  );

  it(
    'structural mutations: accepted iff the reference accepts, with the same tree, hash or error',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(validTransaction, schemaTransaction),
          fc.array(edit, { minLength: 1, maxLength: 3 }),
          (bytes, edits) => {
            const fields = parse(bytes);
            expect(fields).toBeDefined();
            for (const e of edits) mutate(fields!, e);
            agree(serialize(fields!));
          },
        ),
        { numRuns: 1200 },
      );
    },
    SLOW,
  );

  it(
    'byte mutations (bit flips, truncations, appended and inserted bytes): the same outcome',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(validTransaction, schemaTransaction),
          fc.array(raw, { minLength: 1, maxLength: 3 }),
          (bytes, rs) => {
            let b: Uint8Array = bytes;
            for (const r of rs) b = rawMutate(b, r);
            agree(b);
          },
        ),
        { numRuns: 1200 },
      );
    },
    SLOW,
  );

  it(
    'every field of sample transactions under every targeted edit',
    () => {
      const rich = sampleTx({
        roots: [
          {
            ...sampleCreate,
            argument: V.record({
              t: V.bool(true),
              f: V.bool(false),
              i: V.int64(-5n),
              z: V.int64(0n),
              d: V.date(-3),
              s: V.timestamp(5n),
              e: V.text(''),
              u: V.text('é'),
            }),
          },
        ],
      });
      const samples = [
        PreparedTransaction.toBinary(rich, { writeUnknownFields: false }),
        ...fc.sample(schemaTransaction, { seed: 42, numRuns: 4 }),
      ];
      const none = new Uint8Array(0);
      for (const bytes of samples) {
        const count = sites(parse(bytes)!).length;
        for (let at = 0; at < count; at++) {
          const edits: Edit[] = [0, 1, 2, 4, 5, 7, 12, 13].map((kind) => ({
            kind,
            at,
            i: 1,
            j: 0,
            n: 1,
            bytes: none,
          }));
          for (let j = 0; j < varintValues.length; j++)
            edits.push({ kind: 6, at, i: 1, j, n: 0, bytes: none });
          for (const e of edits) {
            const fields = parse(bytes)!;
            mutate(fields, e);
            agree(serialize(fields));
          }
        }
      }
    },
    SLOW,
  );

  it('strings that share an intern slot (same length and first, middle and last byte) decode as themselves', () => {
    // The slot is picked from the length and three bytes; a hit is confirmed by comparing the input bytes, four
    // at a time then one by one. These pairs differ only elsewhere: in a four-byte word, in the tail, in a
    // 64-character package id, and in a non-ASCII byte (never interned).
    const pairs = [
      ['abcdefghijk', 'abXdefghijk'],
      ['abcdefghijk', 'abcdefghiXk'],
      ['p'.repeat(31) + 'x' + 'p'.repeat(32), 'p'.repeat(31) + 'x' + 'p'.repeat(31) + 'q'],
      ['note é one', 'note é two'],
    ];
    for (const [a, b] of pairs) {
      for (const [x, y] of [
        [a!, b!],
        [b!, a!],
      ]) {
        const tx = sampleTx({
          roots: [{ ...sampleCreate, argument: V.record({ a: V.text(x!), b: V.text(y!), c: V.text(x!) }) }],
        });
        const bytes = PreparedTransaction.toBinary(tx, { writeUnknownFields: false });
        const fast = decodeCanonical(bytes);
        expect(fast).toStrictEqual(referenceParse(bytes));
        const node = fast!.transaction!.nodes[0]!.versionedNode;
        if (node.oneofKind !== 'v1' || node.v1.nodeType.oneofKind !== 'create') throw new Error('no create');
        const arg = node.v1.nodeType.create.argument!.sum;
        if (arg.oneofKind !== 'record') throw new Error('no record');
        expect(arg.record.fields.map((f) => (f.value!.sum as { text: string }).text)).toEqual([x, y, x]);
      }
    }
  });

  it('values nested past the depth limit take the reference path, with its answer', () => {
    for (const n of [97, 98, 99, 147, 148, 149, 400]) {
      let deep = V.bool(true);
      for (let i = 0; i < n; i++) deep = V.optional(deep);
      // built shallow (the builder validates), then deepened
      const tx = sampleTx({ roots: [sampleCreate] });
      const first = tx.transaction!.nodes[0]!.versionedNode;
      if (first.oneofKind !== 'v1' || first.v1.nodeType.oneofKind !== 'create') throw new Error('no create');
      first.v1.nodeType.create.argument = V.record({ deep });
      const bytes = PreparedTransaction.toBinary(tx, { writeUnknownFields: false });
      // n optionals, the bool inside and the record around: n + 2 values deep (the limit is 150)
      if (n + 2 > 150) expect(decodeCanonical(bytes)).toBeUndefined();
      else expect(decodeCanonical(bytes)).toStrictEqual(referenceParse(bytes));
      agree(bytes);
    }
  });
});
