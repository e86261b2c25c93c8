// Single-pass decoder for the canonical encoding of a PreparedTransaction: it reads the bytes once and
// builds the same tree protobuf-ts builds (same prototypes, same defaults, same property order), but only
// for input that re-encoding would reproduce byte for byte. It gives up (returns undefined) on anything
// else: unknown or out-of-order fields, a repeated singular field, a second oneof member, a default value
// written where proto3 omits it, a non-minimal varint, a wrong wire type, a bad length, invalid UTF-8,
// deep nesting. The caller then runs the strict protobuf-ts path, which decides what such input is and
// which error it gets, so this decoder can only ever be too cautious, never too lenient.
//
// Why: the strict path decodes with protobuf-ts, then re-encodes the whole tree to compare it with the
// input; on large transactions that doubled the work and the garbage.
import type { MessageType } from '@protobuf-ts/runtime';
import { GlobalKey } from './gen/com/daml/ledger/api/v2/interactive/interactive_submission_common_data.ts';
import {
  Metadata_GlobalKeyMappingEntry,
  Metadata_SubmitterInfo,
} from './gen/com/daml/ledger/api/v2/interactive/prepared_transaction.ts';
import * as V from './gen/com/daml/ledger/api/v2/value.ts';
import { Empty } from './gen/google/protobuf/empty.ts';
import {
  Create,
  DamlTransaction,
  DamlTransaction_Node,
  DamlTransaction_NodeSeed,
  Exercise,
  Fetch,
  GlobalKeyWithMaintainers,
  Identifier,
  Metadata,
  Metadata_InputContract,
  Node,
  PreparedTransaction,
  QueryByKey,
  Rollback,
  Value,
} from './types.ts';

/** Thrown (never escaping this module) when the input is not provably canonical. */
const GIVE_UP = Symbol('not canonical');
function giveUp(): never {
  throw GIVE_UP;
}

// biome-ignore lint/suspicious/noExplicitAny: the generated types' own prototype, to build identical objects
type Obj = any;
function proto(t: MessageType<object>): object {
  const p = t.messagePrototype;
  if (p === undefined) throw new Error(`no message prototype for ${t.typeName}`);
  return p;
}
const P = {
  prepared: proto(PreparedTransaction),
  tx: proto(DamlTransaction),
  txNode: proto(DamlTransaction_Node),
  seed: proto(DamlTransaction_NodeSeed),
  meta: proto(Metadata),
  submitter: proto(Metadata_SubmitterInfo),
  input: proto(Metadata_InputContract),
  keyMapping: proto(Metadata_GlobalKeyMappingEntry),
  node: proto(Node),
  create: proto(Create),
  fetch: proto(Fetch),
  exercise: proto(Exercise),
  rollback: proto(Rollback),
  queryByKey: proto(QueryByKey),
  gkwm: proto(GlobalKeyWithMaintainers),
  globalKey: proto(GlobalKey),
  identifier: proto(Identifier),
  value: proto(Value),
  empty: proto(Empty),
  record: proto(V.Record),
  field: proto(V.RecordField),
  variant: proto(V.Variant),
  enum: proto(V.Enum),
  list: proto(V.List),
  optional: proto(V.Optional),
  textMap: proto(V.TextMap),
  textEntry: proto(V.TextMap_Entry),
  genMap: proto(V.GenMap),
  genEntry: proto(V.GenMap_Entry),
};

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Values nested deeper than this go to the strict path (validation refuses beyond 100 anyway). */
const MAX_VALUE_DEPTH = 150;
/** Strings up to this many bytes are looked up in the per-decode intern table (1024 slots, last one wins). */
const INTERN_MAX = 160;
const INTERN_MASK = 1023;
const interned: (string | undefined)[] = new Array(INTERN_MASK + 1).fill(undefined);
/** Where in the input each interned string's bytes are: a hit is checked by comparing bytes, 4 at a time. */
const internedAt = new Int32Array(INTERN_MASK + 1);

// Decoding is synchronous: the input and position live here for the duration of one call.
let buf: Uint8Array = new Uint8Array(0);
/** Node's Buffer has an undeclared native latin1 slicer, without `toString`'s argument handling. */
type NativeBuffer = Buffer & { latin1Slice(start: number, end: number): string };
let native = Buffer.alloc(0) as NativeBuffer;
let view: DataView = new DataView(new ArrayBuffer(0));
let pos = 0;
let depth = 0;
/** The last 64-bit varint / fixed64 read, as two unsigned 32-bit halves. */
let lo = 0;
let hi = 0;

/**
 * The transaction `bytes` encode, if they are exactly the canonical (protobuf-ts / Java) encoding of it
 * and decode without any doubt; undefined otherwise (the caller must then take the strict path).
 */
export function decodeCanonical(bytes: Uint8Array): PreparedTransaction | undefined {
  buf = bytes;
  native = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as NativeBuffer;
  view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  pos = 0;
  depth = 0;
  interned.fill(undefined);
  try {
    return readPrepared(bytes.length);
  } catch {
    // Not provably canonical (or anything unforeseen, a stack overflow included): the strict path decides.
    return undefined;
  } finally {
    buf = new Uint8Array(0);
    native = Buffer.alloc(0) as NativeBuffer;
    view = new DataView(new ArrayBuffer(0));
    interned.fill(undefined);
  }
}

// ---- wire primitives: each accepts only the minimal encoding protobuf-ts writes, within `end` ----

/** A field tag (field numbers here are below 2^11, so one or two bytes). */
function tag(end: number): number {
  const b0 = buf[pos]!;
  if (b0 < 0x80) {
    pos++;
    return b0;
  }
  if (pos + 1 >= end) giveUp();
  const b1 = buf[pos + 1]!;
  if (b1 === 0 || b1 >= 0x80) giveUp();
  pos += 2;
  return (b0 & 0x7f) | (b1 << 7);
}

/** An unsigned 32-bit varint. */
function uint32(end: number): number {
  if (pos + 1 < end) {
    // one and two bytes: every tag length here but the largest messages'
    const b0 = buf[pos]!;
    if (b0 < 0x80) {
      pos++;
      return b0;
    }
    const b1 = buf[pos + 1]!;
    if (b1 < 0x80) {
      if (b1 === 0) giveUp();
      pos += 2;
      return (b0 & 0x7f) | (b1 << 7);
    }
  }
  let v = 0;
  for (let i = 0; i < 5; i++) {
    if (pos >= end) giveUp();
    const b = buf[pos++]!;
    if (i === 4 && b > 0x0f) giveUp();
    v += (b & 0x7f) * 2 ** (7 * i);
    if (b < 0x80) {
      if (b === 0 && i > 0) giveUp();
      return v;
    }
  }
  return giveUp();
}

/** A length prefix; the bytes it covers must lie within `end`. Returns the end of those bytes. */
function length(end: number): number {
  const len = uint32(end);
  if (len > end - pos) giveUp();
  return pos + len;
}

/** A 64-bit varint into `lo` / `hi`. */
function varint64(end: number): void {
  let l = 0;
  for (let i = 0; i < 4; i++) {
    if (pos >= end) giveUp();
    const b = buf[pos++]!;
    l |= (b & 0x7f) << (7 * i);
    if (b < 0x80) {
      if (b === 0 && i > 0) giveUp();
      lo = l >>> 0;
      hi = 0;
      return;
    }
  }
  if (pos >= end) giveUp();
  let b = buf[pos++]!;
  l |= (b & 0x0f) << 28;
  let h = (b & 0x7f) >> 4;
  if (b >= 0x80) {
    for (let i = 0; ; i++) {
      if (i === 5 || pos >= end) giveUp();
      b = buf[pos++]!;
      h |= (b & 0x7f) << (3 + 7 * i);
      if (b < 0x80) {
        if (i === 4 && b > 1) giveUp();
        break;
      }
    }
  }
  if (b === 0) giveUp();
  lo = l >>> 0;
  hi = h >>> 0;
}

function unsignedBig(): bigint {
  if (hi < 0x200000) return BigInt(hi * 0x100000000 + lo);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

function signedBig(): bigint {
  if (hi < 0x200000) return BigInt(hi * 0x100000000 + lo);
  if (hi >= 0xffe00000) return BigInt((hi - 0x100000000) * 0x100000000 + lo);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
}

function uint64(end: number): bigint {
  varint64(end);
  return unsignedBig();
}

function sint64(end: number): bigint {
  varint64(end);
  const neg = lo & 1;
  const l = ((lo >>> 1) | (hi << 31)) >>> 0;
  const h = hi >>> 1;
  lo = neg ? ~l >>> 0 : l;
  hi = neg ? ~h >>> 0 : h;
  return signedBig();
}

function sfixed64(end: number): bigint {
  if (end - pos < 8) giveUp();
  const b = buf;
  lo = (b[pos]! | (b[pos + 1]! << 8) | (b[pos + 2]! << 16) | (b[pos + 3]! << 24)) >>> 0;
  hi = (b[pos + 4]! | (b[pos + 5]! << 8) | (b[pos + 6]! << 16) | (b[pos + 7]! << 24)) >>> 0;
  pos += 8;
  return signedBig();
}

/** An int32 (negative ones are written as ten-byte sign-extended varints). */
function int32(end: number): number {
  varint64(end);
  if (hi === 0 ? lo > 0x7fffffff : hi !== 0xffffffff || lo < 0x80000000) giveUp();
  return lo | 0;
}

/** A bool: one byte, 0 or 1. */
function bool(end: number): boolean {
  if (pos >= end) giveUp();
  const b = buf[pos++]!;
  if (b > 1) giveUp();
  return b === 1;
}

/** A length-delimited string. */
function string(end: number): string {
  const e = length(end);
  const start = pos;
  pos = e;
  const len = e - start;
  if (len === 0) return '';
  const b = buf;
  if (len <= INTERN_MAX) {
    // Transactions repeat a few strings (parties, package and template ids, labels) on every node: one
    // string per distinct byte run keeps the decoded tree, which the GC copies and marks, much smaller.
    // A hit matches byte for byte an ASCII string, so it needs no UTF-8 scan.
    const slot = (len * 31 + b[start]! * 7 + b[e - 1]! * 131 + b[start + (len >> 1)]! * 17) & INTERN_MASK;
    const hit = interned[slot];
    if (hit !== undefined && hit.length === len && sameBytes(internedAt[slot]!, start, len)) return hit;
    if (!ascii(start, e)) return utf8.decode(b.subarray(start, e)); // throws on invalid UTF-8
    // All bytes < 0x80: latin1 and UTF-8 decode them to the same code units.
    const str = native.latin1Slice(start, e);
    interned[slot] = str;
    internedAt[slot] = start;
    return str;
  }
  if (!ascii(start, e)) return utf8.decode(b.subarray(start, e));
  return native.latin1Slice(start, e);
}

/** Whether the input's `len` bytes at `a` and at `b` are the same (a hit's bytes are where it was first read). */
function sameBytes(a: number, b: number, len: number): boolean {
  const v = view;
  let i = 0;
  for (; i + 4 <= len; i += 4) if (v.getUint32(a + i) !== v.getUint32(b + i)) return false;
  for (; i < len; i++) if (buf[a + i] !== buf[b + i]) return false;
  return true;
}

/** Whether the input's bytes from `start` to `end` are all below 0x80 (4 at a time). */
function ascii(start: number, end: number): boolean {
  const v = view;
  const b = buf;
  let i = start;
  for (; i + 4 <= end; i += 4) if ((v.getUint32(i) & 0x80808080) !== 0) return false;
  for (; i < end; i++) if (b[i]! > 0x7f) return false;
  return true;
}

/** A singular proto3 string: the writer omits "", so an empty one is not canonical. */
function nonEmptyString(end: number): string {
  const s = string(end);
  if (s === '') giveUp();
  return s;
}

/** Singular proto3 bytes (never empty when written), copied so the tree never aliases the input. */
function nonEmptyBytes(end: number): Uint8Array {
  const e = length(end);
  if (e === pos) giveUp();
  const out = new Uint8Array(e - pos);
  out.set(buf.subarray(pos, e));
  pos = e;
  return out;
}

// ---- messages: fields in ascending field-number order, repeated ones contiguous, singular ones once ----

function readPrepared(end: number): PreparedTransaction {
  const m: Obj = Object.create(P.prepared);
  if (pos < end && buf[pos] === 0x0a) {
    pos++;
    m.transaction = readTransaction(length(end));
  }
  if (pos < end && buf[pos] === 0x12) {
    pos++;
    m.metadata = readMetadata(length(end));
  }
  if (pos !== end) giveUp();
  return m;
}

function readTransaction(end: number): DamlTransaction {
  const m: Obj = Object.create(P.tx);
  m.version = '';
  m.roots = [];
  m.nodes = [];
  m.nodeSeeds = [];
  let last = 0;
  while (pos < end) {
    const t = tag(end);
    if (t < last || (t === last && t === 0x0a)) giveUp();
    last = t;
    switch (t) {
      case 0x0a:
        m.version = nonEmptyString(end);
        break;
      case 0x12:
        m.roots.push(string(end));
        break;
      case 0x1a:
        m.nodes.push(readTxNode(length(end)));
        break;
      case 0x22:
        m.nodeSeeds.push(readSeed(length(end)));
        break;
      default:
        giveUp();
    }
  }
  return m;
}

function readTxNode(end: number): DamlTransaction_Node {
  const m: Obj = Object.create(P.txNode);
  m.nodeId = '';
  m.versionedNode = { oneofKind: undefined };
  if (pos < end && buf[pos] === 0x0a) {
    pos++;
    m.nodeId = nonEmptyString(end);
  }
  if (pos < end) {
    if (tag(end) !== 8002) giveUp(); // field 1000, length-delimited
    m.versionedNode = { oneofKind: 'v1', v1: readNode(length(end)) };
  }
  if (pos !== end) giveUp();
  return m;
}

function readSeed(end: number): DamlTransaction_NodeSeed {
  const m: Obj = Object.create(P.seed);
  m.nodeId = 0;
  m.seed = new Uint8Array(0);
  if (pos < end && buf[pos] === 0x08) {
    pos++;
    const id = int32(end);
    if (id === 0) giveUp();
    m.nodeId = id;
  }
  if (pos < end && buf[pos] === 0x12) {
    pos++;
    m.seed = nonEmptyBytes(end);
  }
  if (pos !== end) giveUp();
  return m;
}

function readNode(end: number): Node {
  const m: Obj = Object.create(P.node);
  m.nodeType = { oneofKind: undefined };
  if (pos === end) return m;
  const t = tag(end);
  const e = (t & 7) === 2 ? length(end) : giveUp();
  switch (t) {
    case 0x0a:
      m.nodeType = { oneofKind: 'create', create: readCreate(e) };
      break;
    case 0x12:
      m.nodeType = { oneofKind: 'fetch', fetch: readFetch(e) };
      break;
    case 0x1a:
      m.nodeType = { oneofKind: 'exercise', exercise: readExercise(e) };
      break;
    case 0x22:
      m.nodeType = { oneofKind: 'rollback', rollback: readRollback(e) };
      break;
    case 0x2a:
      m.nodeType = { oneofKind: 'queryByKey', queryByKey: readQueryByKey(e) };
      break;
    default:
      giveUp();
  }
  if (pos !== end) giveUp(); // a second member of the oneof (or a repeat) would replace the first
  return m;
}

function readCreate(end: number): Create {
  const m: Obj = Object.create(P.create);
  m.lfVersion = '';
  m.contractId = '';
  m.packageName = '';
  m.signatories = [];
  m.stakeholders = [];
  let last = 0;
  while (pos < end) {
    const t = tag(end);
    if (t < last || (t === last && t !== 0x32 && t !== 0x3a)) giveUp();
    last = t;
    switch (t) {
      case 0x0a:
        m.lfVersion = nonEmptyString(end);
        break;
      case 0x12:
        m.contractId = nonEmptyString(end);
        break;
      case 0x1a:
        m.packageName = nonEmptyString(end);
        break;
      case 0x22:
        m.templateId = readIdentifier(length(end));
        break;
      case 0x2a:
        m.argument = readValue(length(end));
        break;
      case 0x32:
        m.signatories.push(string(end));
        break;
      case 0x3a:
        m.stakeholders.push(string(end));
        break;
      case 0x42:
        m.key = readGkwm(length(end));
        break;
      default:
        giveUp();
    }
  }
  return m;
}

function readFetch(end: number): Fetch {
  const m: Obj = Object.create(P.fetch);
  m.lfVersion = '';
  m.contractId = '';
  m.packageName = '';
  m.signatories = [];
  m.stakeholders = [];
  m.actingParties = [];
  m.byKey = false;
  let last = 0;
  while (pos < end) {
    const t = tag(end);
    if (t < last || (t === last && t !== 0x2a && t !== 0x32 && t !== 0x3a)) giveUp();
    last = t;
    switch (t) {
      case 0x0a:
        m.lfVersion = nonEmptyString(end);
        break;
      case 0x12:
        m.contractId = nonEmptyString(end);
        break;
      case 0x1a:
        m.packageName = nonEmptyString(end);
        break;
      case 0x22:
        m.templateId = readIdentifier(length(end));
        break;
      case 0x2a:
        m.signatories.push(string(end));
        break;
      case 0x32:
        m.stakeholders.push(string(end));
        break;
      case 0x3a:
        m.actingParties.push(string(end));
        break;
      case 0x42:
        m.interfaceId = readIdentifier(length(end));
        break;
      case 0x4a:
        m.key = readGkwm(length(end));
        break;
      case 0x50:
        if (!bool(end)) giveUp();
        m.byKey = true;
        break;
      default:
        giveUp();
    }
  }
  return m;
}

function readExercise(end: number): Exercise {
  const m: Obj = Object.create(P.exercise);
  m.lfVersion = '';
  m.contractId = '';
  m.packageName = '';
  m.signatories = [];
  m.stakeholders = [];
  m.actingParties = [];
  m.choiceId = '';
  m.consuming = false;
  m.children = [];
  m.choiceObservers = [];
  m.byKey = false;
  let last = 0;
  while (pos < end) {
    const t = tag(end);
    if (t < last) giveUp();
    if (t === last && t !== 0x2a && t !== 0x32 && t !== 0x3a && t !== 0x62 && t !== 0x72) giveUp();
    last = t;
    switch (t) {
      case 0x0a:
        m.lfVersion = nonEmptyString(end);
        break;
      case 0x12:
        m.contractId = nonEmptyString(end);
        break;
      case 0x1a:
        m.packageName = nonEmptyString(end);
        break;
      case 0x22:
        m.templateId = readIdentifier(length(end));
        break;
      case 0x2a:
        m.signatories.push(string(end));
        break;
      case 0x32:
        m.stakeholders.push(string(end));
        break;
      case 0x3a:
        m.actingParties.push(string(end));
        break;
      case 0x42:
        m.interfaceId = readIdentifier(length(end));
        break;
      case 0x4a:
        m.choiceId = nonEmptyString(end);
        break;
      case 0x52:
        m.chosenValue = readValue(length(end));
        break;
      case 0x58:
        if (!bool(end)) giveUp();
        m.consuming = true;
        break;
      case 0x62:
        m.children.push(string(end));
        break;
      case 0x6a:
        m.exerciseResult = readValue(length(end));
        break;
      case 0x72:
        m.choiceObservers.push(string(end));
        break;
      case 0x7a:
        m.key = readGkwm(length(end));
        break;
      case 128: // field 16, varint
        if (!bool(end)) giveUp();
        m.byKey = true;
        break;
      default:
        giveUp();
    }
  }
  return m;
}

function readRollback(end: number): Rollback {
  const m: Obj = Object.create(P.rollback);
  m.children = [];
  while (pos < end) {
    if (tag(end) !== 0x0a) giveUp();
    m.children.push(string(end));
  }
  return m;
}

function readQueryByKey(end: number): QueryByKey {
  const m: Obj = Object.create(P.queryByKey);
  m.lfVersion = '';
  m.packageName = '';
  m.exhaustive = false;
  m.result = [];
  let last = 0;
  while (pos < end) {
    const t = tag(end);
    if (t < last || (t === last && t !== 0x32)) giveUp();
    last = t;
    switch (t) {
      case 0x0a:
        m.lfVersion = nonEmptyString(end);
        break;
      case 0x12:
        m.packageName = nonEmptyString(end);
        break;
      case 0x1a:
        m.templateId = readIdentifier(length(end));
        break;
      case 0x20:
        if (!bool(end)) giveUp();
        m.exhaustive = true;
        break;
      case 0x2a:
        m.key = readGkwm(length(end));
        break;
      case 0x32:
        m.result.push(string(end));
        break;
      default:
        giveUp();
    }
  }
  return m;
}

function readGkwm(end: number): GlobalKeyWithMaintainers {
  const m: Obj = Object.create(P.gkwm);
  m.maintainers = [];
  if (pos < end && buf[pos] === 0x0a) {
    pos++;
    m.key = readGlobalKey(length(end));
  }
  while (pos < end) {
    if (tag(end) !== 0x12) giveUp();
    m.maintainers.push(string(end));
  }
  return m;
}

function readGlobalKey(end: number): GlobalKey {
  const m: Obj = Object.create(P.globalKey);
  m.packageName = '';
  m.hash = new Uint8Array(0);
  let last = 0;
  while (pos < end) {
    const t = tag(end);
    if (t <= last) giveUp();
    last = t;
    switch (t) {
      case 0x0a:
        m.templateId = readIdentifier(length(end));
        break;
      case 0x12:
        m.packageName = nonEmptyString(end);
        break;
      case 0x1a:
        m.key = readValue(length(end));
        break;
      case 0x22:
        m.hash = nonEmptyBytes(end);
        break;
      default:
        giveUp();
    }
  }
  return m;
}

function readIdentifier(end: number): Identifier {
  const m: Obj = Object.create(P.identifier);
  m.packageId = '';
  m.moduleName = '';
  m.entityName = '';
  if (pos < end && buf[pos] === 0x0a) {
    pos++;
    m.packageId = nonEmptyString(end);
  }
  if (pos < end && buf[pos] === 0x12) {
    pos++;
    m.moduleName = nonEmptyString(end);
  }
  if (pos < end && buf[pos] === 0x1a) {
    pos++;
    m.entityName = nonEmptyString(end);
  }
  if (pos !== end) giveUp();
  return m;
}

// ---- metadata ----

function readMetadata(end: number): Metadata {
  const m: Obj = Object.create(P.meta);
  m.synchronizerId = '';
  m.mediatorGroup = 0;
  m.transactionUuid = '';
  m.preparationTime = 0n;
  m.inputContracts = [];
  m.globalKeyMapping = [];
  let last = 0;
  while (pos < end) {
    const t = tag(end);
    if (t < last || (t === last && t !== 0x3a && t !== 0x42)) giveUp();
    last = t;
    switch (t) {
      case 0x12:
        m.submitterInfo = readSubmitter(length(end));
        break;
      case 0x1a:
        m.synchronizerId = nonEmptyString(end);
        break;
      case 0x20: {
        const g = uint32(end);
        if (g === 0) giveUp();
        m.mediatorGroup = g;
        break;
      }
      case 0x2a:
        m.transactionUuid = nonEmptyString(end);
        break;
      case 0x30: {
        const p = uint64(end);
        if (p === 0n) giveUp();
        m.preparationTime = p;
        break;
      }
      case 0x3a:
        m.inputContracts.push(readInput(length(end)));
        break;
      case 0x42:
        m.globalKeyMapping.push(readKeyMapping(length(end)));
        break;
      // proto3 `optional`: written whenever set, zero included
      case 0x48:
        m.minLedgerEffectiveTime = uint64(end);
        break;
      case 0x50:
        m.maxLedgerEffectiveTime = uint64(end);
        break;
      case 0x58:
        m.maxRecordTime = uint64(end);
        break;
      default:
        giveUp();
    }
  }
  return m;
}

function readSubmitter(end: number): Metadata_SubmitterInfo {
  const m: Obj = Object.create(P.submitter);
  m.actAs = [];
  m.commandId = '';
  while (pos < end && buf[pos] === 0x0a) {
    pos++;
    m.actAs.push(string(end));
  }
  if (pos < end && buf[pos] === 0x12) {
    pos++;
    m.commandId = nonEmptyString(end);
  }
  if (pos !== end) giveUp();
  return m;
}

function readInput(end: number): Metadata_InputContract {
  const m: Obj = Object.create(P.input);
  m.contract = { oneofKind: undefined };
  m.createdAt = 0n;
  m.eventBlob = new Uint8Array(0);
  if (pos < end && buf[pos] === 0x0a) {
    pos++;
    m.contract = { oneofKind: 'v1', v1: readCreate(length(end)) };
  }
  let last = 0;
  while (pos < end) {
    const t = tag(end);
    if (t <= last) giveUp();
    last = t;
    if (t === 8000) {
      // field 1000, varint
      const at = uint64(end);
      if (at === 0n) giveUp();
      m.createdAt = at;
    } else if (t === 8018) {
      // field 1002, length-delimited
      m.eventBlob = nonEmptyBytes(end);
    } else giveUp();
  }
  return m;
}

function readKeyMapping(end: number): Metadata_GlobalKeyMappingEntry {
  const m: Obj = Object.create(P.keyMapping);
  if (pos < end && buf[pos] === 0x0a) {
    pos++;
    m.key = readGlobalKey(length(end));
  }
  if (pos < end && buf[pos] === 0x12) {
    pos++;
    m.value = readValue(length(end));
  }
  if (pos !== end) giveUp();
  return m;
}

// ---- values ----

function readValue(end: number): Value {
  const m: Obj = Object.create(P.value);
  if (pos === end) {
    m.sum = { oneofKind: undefined };
    return m;
  }
  if (++depth > MAX_VALUE_DEPTH) giveUp();
  const t = tag(end);
  // Members of the oneof are written even when default-valued (false, 0, "").
  switch (t) {
    case 0x0a: {
      if (length(end) !== pos) giveUp(); // Empty has no fields
      m.sum = { oneofKind: 'unit', unit: Object.create(P.empty) };
      break;
    }
    case 0x10:
      m.sum = { oneofKind: 'bool', bool: bool(end) };
      break;
    case 0x18:
      m.sum = { oneofKind: 'int64', int64: sint64(end) };
      break;
    case 0x20:
      m.sum = { oneofKind: 'date', date: int32(end) };
      break;
    case 0x29:
      m.sum = { oneofKind: 'timestamp', timestamp: sfixed64(end) };
      break;
    case 0x32:
      m.sum = { oneofKind: 'numeric', numeric: string(end) };
      break;
    case 0x3a:
      m.sum = { oneofKind: 'party', party: string(end) };
      break;
    case 0x42:
      m.sum = { oneofKind: 'text', text: string(end) };
      break;
    case 0x4a:
      m.sum = { oneofKind: 'contractId', contractId: string(end) };
      break;
    case 0x52:
      m.sum = { oneofKind: 'optional', optional: readOptional(length(end)) };
      break;
    case 0x5a:
      m.sum = { oneofKind: 'list', list: readList(length(end)) };
      break;
    case 0x62:
      m.sum = { oneofKind: 'textMap', textMap: readTextMap(length(end)) };
      break;
    case 0x6a:
      m.sum = { oneofKind: 'genMap', genMap: readGenMap(length(end)) };
      break;
    case 0x72:
      m.sum = { oneofKind: 'record', record: readRecord(length(end)) };
      break;
    case 0x7a:
      m.sum = { oneofKind: 'variant', variant: readVariant(length(end)) };
      break;
    case 130: // field 16, length-delimited
      m.sum = { oneofKind: 'enum', enum: readEnum(length(end)) };
      break;
    default:
      giveUp();
  }
  depth--;
  if (pos !== end) giveUp(); // a second member of the oneof (or a repeat) would replace the first
  return m;
}

function readRecord(end: number): V.Record {
  const m: Obj = Object.create(P.record);
  m.fields = [];
  if (pos < end && buf[pos] === 0x0a) {
    pos++;
    m.recordId = readIdentifier(length(end));
  }
  while (pos < end) {
    if (buf[pos] !== 0x12) giveUp();
    pos++;
    const e = length(end);
    const f: Obj = Object.create(P.field);
    f.label = '';
    if (pos < e && buf[pos] === 0x0a) {
      pos++;
      f.label = nonEmptyString(e);
    }
    if (pos < e && buf[pos] === 0x12) {
      pos++;
      f.value = readValue(length(e));
    }
    if (pos !== e) giveUp();
    m.fields.push(f);
  }
  return m;
}

function readVariant(end: number): V.Variant {
  const m: Obj = Object.create(P.variant);
  m.constructor = '';
  if (pos < end && buf[pos] === 0x0a) {
    pos++;
    m.variantId = readIdentifier(length(end));
  }
  if (pos < end && buf[pos] === 0x12) {
    pos++;
    m.constructor = nonEmptyString(end);
  }
  if (pos < end && buf[pos] === 0x1a) {
    pos++;
    m.value = readValue(length(end));
  }
  if (pos !== end) giveUp();
  return m;
}

function readEnum(end: number): V.Enum {
  const m: Obj = Object.create(P.enum);
  m.constructor = '';
  if (pos < end && buf[pos] === 0x0a) {
    pos++;
    m.enumId = readIdentifier(length(end));
  }
  if (pos < end && buf[pos] === 0x12) {
    pos++;
    m.constructor = nonEmptyString(end);
  }
  if (pos !== end) giveUp();
  return m;
}

function readList(end: number): V.List {
  const m: Obj = Object.create(P.list);
  m.elements = [];
  while (pos < end) {
    if (buf[pos] !== 0x0a) giveUp();
    pos++;
    m.elements.push(readValue(length(end)));
  }
  return m;
}

function readOptional(end: number): V.Optional {
  const m: Obj = Object.create(P.optional);
  if (pos < end && buf[pos] === 0x0a) {
    pos++;
    m.value = readValue(length(end));
  }
  if (pos !== end) giveUp();
  return m;
}

function readTextMap(end: number): V.TextMap {
  const m: Obj = Object.create(P.textMap);
  m.entries = [];
  while (pos < end) {
    if (buf[pos] !== 0x0a) giveUp();
    pos++;
    const e = length(end);
    const entry: Obj = Object.create(P.textEntry);
    entry.key = '';
    if (pos < e && buf[pos] === 0x0a) {
      pos++;
      entry.key = nonEmptyString(e);
    }
    if (pos < e && buf[pos] === 0x12) {
      pos++;
      entry.value = readValue(length(e));
    }
    if (pos !== e) giveUp();
    m.entries.push(entry);
  }
  return m;
}

function readGenMap(end: number): V.GenMap {
  const m: Obj = Object.create(P.genMap);
  m.entries = [];
  while (pos < end) {
    if (buf[pos] !== 0x0a) giveUp();
    pos++;
    const e = length(end);
    const entry: Obj = Object.create(P.genEntry);
    if (pos < e && buf[pos] === 0x0a) {
      pos++;
      entry.key = readValue(length(e));
    }
    if (pos < e && buf[pos] === 0x12) {
      pos++;
      entry.value = readValue(length(e));
    }
    if (pos !== e) giveUp();
    m.entries.push(entry);
  }
  return m;
}
