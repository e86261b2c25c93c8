/**
 * The topology transactions the participant reads from `allocate` and writes from `generate-topology`, decoded
 * and encoded with the sandbox's own wire code: `version.v1.UntypedVersionedMessage{data=1, version=2}` (version
 * must be 30, TopologyTransaction.scala L185–191) around `protocol.v30.TopologyTransaction` (topology.proto
 * L248–306, crypto/v30/crypto.proto). Field numbers and enums: external-party-keys.md §1.3.
 */
import { parsePublicKey, type RegisteredKey } from '../keys.ts';
import { hex, txHash } from './hash.ts';
import { type Field, last, readFields, repeatedVarints, utf8, WireError, Writer } from './wire.ts';

/** crypto/v30 SigningKeyUsage. */
export const USAGE = {
  NAMESPACE: 1,
  SEQUENCER_AUTHENTICATION: 3,
  PROTOCOL: 4,
  PROOF_OF_OWNERSHIP: 5,
} as const;
const ALL_USAGES = [1, 3, 4, 5];
/** crypto/v30 CryptoKeyFormat → the Ledger API name keys.ts reads (the enum trap of §1.3). */
const FORMATS: Record<number, string> = {
  2: 'CRYPTO_KEY_FORMAT_DER',
  3: 'CRYPTO_KEY_FORMAT_RAW',
  4: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
};
const SPECS: Record<number, string> = {
  1: 'SIGNING_KEY_SPEC_EC_CURVE25519',
  2: 'SIGNING_KEY_SPEC_EC_P256',
  3: 'SIGNING_KEY_SPEC_EC_P384',
  4: 'SIGNING_KEY_SPEC_EC_SECP256K1',
};
export const SPEC_NUMBERS: Record<string, number> = Object.fromEntries(
  Object.entries(SPECS).map(([k, v]) => [v, Number(k)]),
);

export type Permission = 1 | 2 | 3;
export const PERMISSION_NAMES = {
  1: 'PARTICIPANT_PERMISSION_SUBMISSION',
  2: 'PARTICIPANT_PERMISSION_CONFIRMATION',
  3: 'PARTICIPANT_PERMISSION_OBSERVATION',
} as const;

export interface TopologyKey {
  key: RegisteredKey;
  /** Usages as parsed: an empty list is every usage (SigningKeyUsage.fromProtoListWithDefault). */
  usage: number[];
}

export interface HostingParticipant {
  uid: string;
  permission: Permission;
  onboarding: boolean;
}

export interface PartyToParticipant {
  kind: 'PartyToParticipant';
  party: string;
  namespace: string;
  threshold: number;
  participants: HostingParticipant[];
  signingKeys?: { keys: TopologyKey[]; threshold: number };
}

export interface NamespaceDelegation {
  kind: 'NamespaceDelegation';
  namespace: string;
  target: TopologyKey;
  /** Root: the namespace is the target key's own fingerprint. */
  root: boolean;
}

export interface DecentralizedNamespaceDefinition {
  kind: 'DecentralizedNamespaceDefinition';
  namespace: string;
  threshold: number;
  owners: string[];
}

/** Decoded only to be refused where the participant refuses it (PartyToKeyMapping, and anything else). */
export interface OtherMapping {
  kind: 'PartyToKeyMapping' | 'Other';
  field: number;
}

export type Mapping =
  | PartyToParticipant
  | NamespaceDelegation
  | DecentralizedNamespaceDefinition
  | OtherMapping;

export interface TopologyTransaction {
  /** 1 = ADD_REPLACE, 2 = REMOVE. */
  operation: number;
  serial: number;
  mapping: Mapping;
  /** The UntypedVersionedMessage bytes as received: what is hashed. */
  bytes: Uint8Array;
  hash: Uint8Array;
  hashHex: string;
}

export class TopologyDecodeError extends Error {
  override readonly name = 'TopologyDecodeError';
}

function fail(why: string): never {
  throw new TopologyDecodeError(why);
}

function str(fields: Field[], no: number): string {
  const f = last(fields, no, 2);
  return f ? utf8(f.bytes) : '';
}

function num(fields: Field[], no: number): number {
  return Number(last(fields, no, 0)?.varint ?? 0n);
}

function decodeKey(bytes: Uint8Array): TopologyKey {
  const f = readFields(bytes);
  const format = FORMATS[num(f, 2)];
  const spec = SPECS[num(f, 6)];
  if (!format) fail(`unsupported key format ${num(f, 2)}`);
  if (!spec) fail(`unsupported signing key spec ${num(f, 6)}`);
  let key: RegisteredKey;
  try {
    // A RAW Ed25519 key is migrated to DER SPKI; its fingerprint stays over the raw bytes (Signing.scala L1325–1405).
    key = parsePublicKey(format, last(f, 3, 2)?.bytes ?? new Uint8Array(), spec);
  } catch (e) {
    fail((e as Error).message);
  }
  const usage = repeatedVarints(f, 5);
  for (const u of usage) if (!ALL_USAGES.includes(u)) fail(`unknown signing key usage ${u}`);
  return { key, usage: usage.length === 0 ? [...ALL_USAGES] : [...new Set(usage)] };
}

function namespaceOf(uid: string): string {
  const i = uid.indexOf('::');
  if (i <= 0 || !/^1220[0-9a-f]{64}$/.test(uid.slice(i + 2))) fail(`invalid unique identifier ${uid}`);
  return uid.slice(i + 2);
}

function decodeP2P(bytes: Uint8Array): PartyToParticipant {
  const f = readFields(bytes);
  const party = str(f, 1);
  const participants = f
    .filter((x) => x.no === 3 && x.wire === 2)
    .map((x) => {
      const h = readFields(x.bytes);
      const permission = num(h, 2);
      if (permission < 1 || permission > 3) fail(`invalid participant permission ${permission}`);
      const uid = str(h, 1);
      namespaceOf(uid);
      return { uid, permission: permission as Permission, onboarding: last(h, 3, 2) !== undefined };
    });
  const keysField = last(f, 6, 2);
  let signingKeys: PartyToParticipant['signingKeys'];
  if (keysField) {
    const k = readFields(keysField.bytes);
    signingKeys = {
      keys: k.filter((x) => x.no === 1 && x.wire === 2).map((x) => decodeKey(x.bytes)),
      threshold: num(k, 2),
    };
    if (signingKeys.keys.length === 0) fail('party_signing_keys has no keys');
    if (signingKeys.threshold < 1) fail('party_signing_keys threshold must be positive');
  }
  const threshold = num(f, 2);
  if (threshold < 1) fail('threshold must be positive');
  if (participants.length === 0) fail('participants must not be empty');
  return {
    kind: 'PartyToParticipant',
    party,
    namespace: namespaceOf(party),
    threshold,
    participants,
    signingKeys,
  };
}

function decodeNSD(bytes: Uint8Array): NamespaceDelegation {
  const f = readFields(bytes);
  const namespace = str(f, 1);
  const keyField = last(f, 2, 2);
  if (!keyField) fail('namespace delegation without target_key');
  const target = decodeKey(keyField.bytes);
  if (!f.some((x) => x.no >= 4 && x.no <= 6)) fail('namespace delegation without restriction');
  return { kind: 'NamespaceDelegation', namespace, target, root: target.key.fingerprint === namespace };
}

function decodeDND(bytes: Uint8Array): DecentralizedNamespaceDefinition {
  const f = readFields(bytes);
  const threshold = Number(BigInt.asIntN(32, last(f, 2, 0)?.varint ?? 0n));
  const owners = f.filter((x) => x.no === 3 && x.wire === 2).map((x) => utf8(x.bytes));
  if (owners.length === 0) fail('decentralized namespace without owners');
  if (threshold < 1 || threshold > owners.length) fail(`invalid threshold ${threshold}`);
  return { kind: 'DecentralizedNamespaceDefinition', namespace: str(f, 1), threshold, owners };
}

function decodeMapping(bytes: Uint8Array): Mapping {
  const f = readFields(bytes);
  if (f.length !== 1 || f[0]!.wire !== 2) fail('mapping must hold exactly one of its cases');
  const m = f[0]!;
  switch (m.no) {
    case 1:
      return decodeNSD(m.bytes);
    case 3:
      return decodeDND(m.bytes);
    case 9:
      return decodeP2P(m.bytes);
    case 16:
      return { kind: 'PartyToKeyMapping', field: 16 };
    default:
      return { kind: 'Other', field: m.no };
  }
}

/** Parses the bytes of one onboarding transaction; throws TopologyDecodeError with the reason. */
export function decodeTransaction(bytes: Uint8Array): TopologyTransaction {
  try {
    const uvm = readFields(bytes);
    const version = num(uvm, 2);
    if (version !== 30) fail(`unsupported version ${version} (expected 30)`);
    const data = last(uvm, 1, 2);
    if (!data) fail('no data');
    const tx = readFields(data.bytes);
    const operation = num(tx, 1);
    if (operation !== 1 && operation !== 2) fail(`invalid operation ${operation}`);
    const mappingField = last(tx, 3, 2);
    if (!mappingField) fail('no mapping');
    const hash = txHash(bytes);
    return {
      operation,
      serial: num(tx, 2),
      mapping: decodeMapping(mappingField.bytes),
      bytes,
      hash,
      hashHex: hex(hash),
    };
  } catch (e) {
    if (e instanceof WireError) fail(e.message);
    if (e instanceof TypeError) fail('invalid UTF-8 string');
    throw e;
  }
}

function encodeKey(k: TopologyKey): Uint8Array {
  return new Writer()
    .varint(2, 4) // DER_X509_SUBJECT_PUBLIC_KEY_INFO in the v30 enum
    .bytes(3, k.key.spki)
    .packed(5, k.usage)
    .varint(6, SPEC_NUMBERS[k.key.keySpec] ?? 0)
    .finish();
}

/** Serializes a PartyToParticipant transaction into its UntypedVersionedMessage (version 30). */
export function encodePartyToParticipant(
  serial: number,
  m: Omit<PartyToParticipant, 'kind' | 'namespace'>,
): Uint8Array {
  const p2p = new Writer().string(1, m.party).varint(2, m.threshold);
  for (const h of m.participants) {
    const w = new Writer().string(1, h.uid).varint(2, h.permission);
    if (h.onboarding) w.bytes(3, new Uint8Array(), true);
    p2p.bytes(3, w.finish());
  }
  if (m.signingKeys) {
    const keys = new Writer();
    for (const k of m.signingKeys.keys) keys.bytes(1, encodeKey(k));
    keys.varint(2, m.signingKeys.threshold);
    p2p.bytes(6, keys.finish());
  }
  const mapping = new Writer().bytes(9, p2p.finish()).finish();
  const tx = new Writer().varint(1, 1).varint(2, serial).bytes(3, mapping).finish();
  return new Writer().bytes(1, tx).varint(2, 30).finish();
}
