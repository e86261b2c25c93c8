// Encoder and strict decoder of Canton v30 TopologyTransactions inside UntypedVersionedMessage (version 30).
// Wire numbers: community/base/src/main/protobuf/com/digitalasset/canton/protocol/v30/topology.proto,
// .../crypto/v30/crypto.proto and .../version/v1/untyped_versioned_message.proto; the parse rules mirror
// topology/transaction/TopologyMapping.scala and TopologyTransaction.scala (`fromProtoV30`).
// Fields are written in field-number order with proto3 defaults left out, as ScalaPB writes them, so a
// transaction Canton produced re-encodes to the same bytes (the DevNet vector in the tests pins this).
import { WireType } from '@protobuf-ts/runtime';
import { FastBinaryWriter } from '../transaction/wire-writer.ts';
import { invalid, malformed } from './errors.ts';
import type {
  NamespaceDelegation,
  PartyToParticipant,
  TopologyKey,
  TopologyMapping,
  TopologyTransaction,
} from './types.ts';
import { Message } from './wire.ts';

/** TopologyTransaction.versioningTable: ProtoVersion(30) for every supported protocol version. */
const PROTO_VERSION = 30;
/** Canton reads serials and thresholds into PositiveInt (a JVM Int), so a uint32 above 2^31-1 fails there. */
const MAX_POSITIVE_INT = 0x7fffffff;
/** crypto.v30.CryptoKeyFormat.DER_X509_SUBJECT_PUBLIC_KEY_INFO (not the Ledger API enum, where it is 3). */
const FORMAT_DER_SPKI = 4;

const OPERATIONS = { 'add-replace': 1, remove: 2 } as const;
const PERMISSIONS = { submission: 1, confirmation: 2, observation: 3 } as const;
// IDENTITY_DELEGATION (2) is gone from crypto.proto's SigningKeyUsage; 0 is UNSPECIFIED.
const USAGES = { namespace: 1, 'sequencer-authentication': 3, protocol: 4, 'proof-of-ownership': 5 } as const;
const KEY_SPECS = {
  SIGNING_KEY_SPEC_EC_CURVE25519: 1,
  SIGNING_KEY_SPEC_EC_P256: 2,
  SIGNING_KEY_SPEC_EC_P384: 3,
  SIGNING_KEY_SPEC_EC_SECP256K1: 4,
} as const;
/** Enums.TopologyMappingCode values that TopologyMapping.Code.fromProtoV30 accepts (Code.all). */
export const MAPPING_CODES: ReadonlySet<number> = new Set([
  1, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 17, 18, 19, 20,
]);

/** TopologyMapping oneof field numbers (topology.proto), for a precise refusal of the kinds we do not model. */
const OTHER_MAPPINGS: Record<number, string> = {
  3: 'decentralized_namespace_definition',
  4: 'owner_to_key_mapping',
  5: 'synchronizer_trust_certificate',
  6: 'participant_permission',
  7: 'party_hosting_limits',
  8: 'vetted_packages',
  11: 'synchronizer_parameters_state',
  12: 'mediator_synchronizer_state',
  13: 'sequencer_synchronizer_state',
  15: 'sequencing_dynamic_parameters_state',
  16: 'party_to_key_mapping',
  17: 'synchronizer_upgrade_announcement',
  18: 'sequencer_connection_successor',
};

function reverse<K extends string>(m: Record<K, number>): Map<number, K> {
  return new Map(Object.entries(m).map(([k, v]) => [v as number, k as K]));
}
const OPERATION_OF = reverse(OPERATIONS);
const PERMISSION_OF = reverse(PERMISSIONS);
const USAGE_OF = reverse(USAGES);
const KEY_SPEC_OF = reverse(KEY_SPECS);

// ---------------------------------------------------------------------------------------------- encode

/** The UntypedVersionedMessage bytes of `tx` (what `onboardingTransactions[].transaction` carries, base64). */
export function encodeTopologyTransaction(tx: TopologyTransaction): Uint8Array {
  validateTransaction(tx);
  const w = new FastBinaryWriter();
  // UntypedVersionedMessage { oneof wrapper { bytes data = 1 }; int32 version = 2 }
  w.tag(1, WireType.LengthDelimited).fork();
  writeTransaction(w, tx);
  w.join();
  w.tag(2, WireType.Varint).int32(PROTO_VERSION);
  return w.finish();
}

function writeTransaction(w: FastBinaryWriter, tx: TopologyTransaction): void {
  w.tag(1, WireType.Varint).uint32(OPERATIONS[tx.operation]);
  w.tag(2, WireType.Varint).uint32(tx.serial);
  w.tag(3, WireType.LengthDelimited).fork();
  if (tx.mapping.kind === 'party-to-participant') {
    w.tag(9, WireType.LengthDelimited).fork();
    writePartyToParticipant(w, tx.mapping);
  } else {
    w.tag(1, WireType.LengthDelimited).fork();
    writeNamespaceDelegation(w, tx.mapping);
  }
  w.join();
  w.join();
}

function writePartyToParticipant(w: FastBinaryWriter, m: PartyToParticipant): void {
  w.tag(1, WireType.LengthDelimited).string(m.party);
  w.tag(2, WireType.Varint).uint32(m.threshold);
  for (const p of m.participants) {
    w.tag(3, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(p.uid);
    w.tag(2, WireType.Varint).uint32(PERMISSIONS[p.permission]);
    // Onboarding is an empty message: present means true (HostingParticipant.toProto).
    if (p.onboarding) w.tag(3, WireType.LengthDelimited).uint32(0);
    w.join();
  }
  if (m.signingKeys) {
    w.tag(6, WireType.LengthDelimited).fork();
    for (const k of m.signingKeys.keys) writeKey(w, 1, k);
    w.tag(2, WireType.Varint).uint32(m.signingKeys.threshold);
    w.join();
  }
}

function writeNamespaceDelegation(w: FastBinaryWriter, m: NamespaceDelegation): void {
  w.tag(1, WireType.LengthDelimited).string(m.namespace);
  writeKey(w, 2, m.targetKey);
  // is_root_delegation (3) is deprecated and Canton always writes false, i.e. nothing.
  const r = m.restriction;
  if (r.kind === 'all') w.tag(4, WireType.LengthDelimited).uint32(0);
  else if (r.kind === 'all-but-namespace-delegations') w.tag(5, WireType.LengthDelimited).uint32(0);
  else {
    w.tag(6, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).fork();
    for (const code of r.mappings) w.int32(code);
    w.join();
    w.join();
  }
}

/** crypto.v30.SigningPublicKey { format = 2; public_key = 3; scheme = 4 (deprecated, unset); usage = 5 packed; key_spec = 6 }. */
function writeKey(w: FastBinaryWriter, field: number, k: TopologyKey): void {
  w.tag(field, WireType.LengthDelimited).fork();
  w.tag(2, WireType.Varint).uint32(FORMAT_DER_SPKI);
  w.tag(3, WireType.LengthDelimited).bytes(k.spki);
  w.tag(5, WireType.LengthDelimited).fork();
  for (const u of k.usage) w.int32(USAGES[u]);
  w.join();
  w.tag(6, WireType.Varint).uint32(KEY_SPECS[k.keySpec]);
  w.join();
}

// -------------------------------------------------------------------------------------- encode checks

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function positive(v: unknown, what: string): void {
  if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > MAX_POSITIVE_INT) {
    invalid(`${what} must be an integer in 1..${MAX_POSITIVE_INT}`);
  }
}

/** A UTF-16 surrogate without its partner: TextEncoder would silently write U+FFFD instead. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function nonEmptyString(v: unknown, what: string): void {
  if (typeof v !== 'string' || v.length === 0) invalid(`${what} must be a non-empty string`);
  if (LONE_SURROGATE.test(v)) invalid(`${what} is not well-formed Unicode`);
}

function validateTransaction(tx: TopologyTransaction): void {
  if (!isObject(tx)) invalid('a topology transaction must be an object');
  if (!Object.hasOwn(OPERATIONS, tx.operation)) invalid(`unknown operation ${String(tx.operation)}`);
  positive(tx.serial, 'serial');
  const m: unknown = tx.mapping;
  if (!isObject(m)) invalid('mapping must be an object');
  if (m.kind === 'party-to-participant') validatePartyToParticipant(m as unknown as PartyToParticipant);
  else if (m.kind === 'namespace-delegation')
    validateNamespaceDelegation(m as unknown as NamespaceDelegation);
  else invalid(`unknown mapping kind ${String(m.kind)}`);
}

function validatePartyToParticipant(m: PartyToParticipant): void {
  nonEmptyString(m.party, 'party');
  positive(m.threshold, 'threshold');
  if (!Array.isArray(m.participants)) invalid('participants must be an array');
  m.participants.forEach((p, i) => {
    if (!isObject(p)) invalid(`participants[${i}] must be an object`);
    nonEmptyString(p.uid, `participants[${i}].uid`);
    if (!Object.hasOwn(PERMISSIONS, p.permission)) invalid(`participants[${i}].permission is unknown`);
    if (p.onboarding !== undefined && typeof p.onboarding !== 'boolean') {
      invalid(`participants[${i}].onboarding must be a boolean`);
    }
  });
  if (m.signingKeys === undefined) return;
  if (!isObject(m.signingKeys) || !Array.isArray(m.signingKeys.keys) || m.signingKeys.keys.length === 0) {
    // SigningKeysWithThreshold.keys is NonEmpty (crypto/Signing.scala).
    invalid('signingKeys.keys must be a non-empty array');
  }
  for (const [i, k] of m.signingKeys.keys.entries()) validateKey(k, `signingKeys.keys[${i}]`);
  positive(m.signingKeys.threshold, 'signingKeys.threshold');
}

function validateNamespaceDelegation(m: NamespaceDelegation): void {
  nonEmptyString(m.namespace, 'namespace');
  validateKey(m.targetKey, 'targetKey');
  const r: unknown = m.restriction;
  if (!isObject(r)) invalid('restriction must be an object');
  if (r.kind === 'all' || r.kind === 'all-but-namespace-delegations') return;
  if (r.kind !== 'specific') invalid(`unknown restriction kind ${String(r.kind)}`);
  const codes = r.mappings;
  // CanSignSpecificMappings holds a NonEmpty set of known codes (DelegationRestriction.fromProtoV30).
  if (!Array.isArray(codes) || codes.length === 0) invalid('restriction.mappings must be a non-empty array');
  for (const c of codes)
    if (!MAPPING_CODES.has(c)) invalid(`restriction.mappings has unknown code ${String(c)}`);
  if (new Set(codes).size !== codes.length) invalid('restriction.mappings has a duplicate');
}

function validateKey(k: TopologyKey, what: string): void {
  if (!isObject(k)) invalid(`${what} must be an object`);
  if (!(k.spki instanceof Uint8Array) || k.spki.length === 0) invalid(`${what}.spki must be non-empty bytes`);
  if (!Object.hasOwn(KEY_SPECS, k.keySpec)) invalid(`${what}.keySpec is unknown`);
  // SigningKeyUsage.fromProtoListWithDefault reads an empty list as every usage: never write one by accident.
  if (!Array.isArray(k.usage) || k.usage.length === 0) invalid(`${what}.usage must be a non-empty array`);
  for (const u of k.usage) if (!Object.hasOwn(USAGES, u)) invalid(`${what}.usage has unknown ${String(u)}`);
  if (new Set(k.usage).size !== k.usage.length) invalid(`${what}.usage has a duplicate`);
}

// ---------------------------------------------------------------------------------------------- decode

/** Decodes UntypedVersionedMessage(version 30, TopologyTransaction) bytes; throws TopologyError('MALFORMED'). */
export function decodeTopologyTransaction(bytes: Uint8Array): TopologyTransaction {
  if (!(bytes instanceof Uint8Array)) malformed('a topology transaction must be bytes');
  const outer = new Message(bytes, 'UntypedVersionedMessage');
  const version = outer.varint(2, 'version');
  if (version !== PROTO_VERSION)
    malformed(`UntypedVersionedMessage.version is ${version}, expected ${PROTO_VERSION}`);
  if (!outer.has(1)) malformed('UntypedVersionedMessage.data is missing');
  const tx = new Message(outer.bytes(1, 'data'), 'TopologyTransaction');

  const op = OPERATION_OF.get(tx.varint(1, 'operation'));
  if (!op) malformed('TopologyTransaction.operation is not ADD_REPLACE (1) or REMOVE (2)');
  const serial = tx.uint32(2, 'serial');
  if (serial < 1 || serial > MAX_POSITIVE_INT)
    malformed(`TopologyTransaction.serial ${serial} is not positive`);
  const mapping = tx.message(3, 'mapping');
  if (!mapping) malformed('TopologyTransaction.mapping is missing');
  return { operation: op, serial, mapping: readMapping(mapping) };
}

function readMapping(m: Message): TopologyMapping {
  const present = m.numbers();
  if (present.length === 0) malformed('TopologyMapping has no mapping set');
  if (present.length > 1) malformed(`TopologyMapping sets several oneof fields (${present.join(', ')})`);
  const no = present[0]!;
  if (no === 9) return readPartyToParticipant(m.message(9, 'party_to_participant')!);
  if (no === 1) return readNamespaceDelegation(m.message(1, 'namespace_delegation')!);
  return malformed(`unsupported topology mapping ${OTHER_MAPPINGS[no] ?? `field ${no}`}`);
}

function readPositive(m: Message, no: number, name: string): number {
  const v = m.uint32(no, name);
  if (v < 1 || v > MAX_POSITIVE_INT) malformed(`${m.what}.${name} ${v} is not positive`);
  return v;
}

function readNonEmptyString(m: Message, no: number, name: string): string {
  const s = m.string(no, name);
  if (s.length === 0) malformed(`${m.what}.${name} is empty`);
  return s;
}

function readPartyToParticipant(m: Message): PartyToParticipant {
  const party = readNonEmptyString(m, 1, 'party');
  const threshold = readPositive(m, 2, 'threshold');
  const participants = m.messages(3, 'participants').map((h) => {
    const uid = readNonEmptyString(h, 1, 'participant_uid');
    const permission = PERMISSION_OF.get(h.varint(2, 'permission'));
    if (!permission) malformed(`${h.what}.permission is not SUBMISSION, CONFIRMATION or OBSERVATION`);
    const onboarding = h.message(3, 'onboarding') !== undefined;
    return onboarding ? { uid, permission, onboarding } : { uid, permission };
  });
  const out: PartyToParticipant = { kind: 'party-to-participant', party, threshold, participants };
  const sk = m.message(6, 'party_signing_keys');
  if (sk) {
    const keys = sk.messages(1, 'keys').map(readKey);
    if (keys.length === 0) malformed(`${sk.what}.keys is empty`);
    out.signingKeys = { keys, threshold: readPositive(sk, 2, 'threshold') };
  }
  return out;
}

function readNamespaceDelegation(m: Message): NamespaceDelegation {
  const namespace = readNonEmptyString(m, 1, 'namespace');
  const target = m.message(2, 'target_key');
  if (!target) malformed(`${m.what}.target_key is missing`);
  const targetKey = readKey(target);
  const isRoot = m.bool(3, 'is_root_delegation');
  const set = [4, 5, 6].filter((no) => m.has(no));
  if (set.length > 1) malformed(`${m.what} sets several restrictions (${set.join(', ')})`);
  let restriction: NamespaceDelegation['restriction'];
  if (set.length === 0) {
    // Backwards compatibility in NamespaceDelegation.fromProtoV30: no restriction means is_root_delegation decides.
    restriction = isRoot ? { kind: 'all' } : { kind: 'all-but-namespace-delegations' };
  } else {
    if (isRoot) malformed(`${m.what}.is_root_delegation is true next to an explicit restriction`);
    m.message(4, 'can_sign_all_mappings');
    m.message(5, 'can_sign_all_but_namespace_delegations');
    const specific = m.message(6, 'can_sign_specific_mapings');
    if (set[0] === 4) restriction = { kind: 'all' };
    else if (set[0] === 5) restriction = { kind: 'all-but-namespace-delegations' };
    else {
      const mappings = specific!.enums(1, 'mappings');
      if (mappings.length === 0) malformed(`${specific!.what}.mappings is empty`);
      for (const c of mappings)
        if (!MAPPING_CODES.has(c)) malformed(`${specific!.what} has unknown mapping code ${c}`);
      // CanSignSpecificMappings.toProtoV30 writes a set: a repeat was not written by a participant.
      if (new Set(mappings).size !== mappings.length) malformed(`${specific!.what} repeats a mapping code`);
      restriction = { kind: 'specific', mappings };
    }
  }
  return { kind: 'namespace-delegation', namespace, targetKey, restriction };
}

function readKey(k: Message): TopologyKey {
  const format = k.varint(2, 'format');
  if (format !== FORMAT_DER_SPKI)
    malformed(`${k.what}.format is ${format}, expected DER_X509_SUBJECT_PUBLIC_KEY_INFO (4)`);
  const spki = k.bytes(3, 'public_key');
  if (spki.length === 0) malformed(`${k.what}.public_key is empty`);
  k.varint(4, 'scheme'); // deprecated; key_spec decides (checked for its wire type only)
  const keySpec = KEY_SPEC_OF.get(k.varint(6, 'key_spec'));
  if (!keySpec) malformed(`${k.what}.key_spec is not a supported SigningKeySpec (1..4)`);
  const usage = k.enums(5, 'usage').map((u) => {
    const name = USAGE_OF.get(u);
    if (!name) malformed(`${k.what}.usage has unknown value ${u}`);
    return name;
  });
  // Canton keeps a key's usage as a NonEmpty set (crypto/Signing.scala SigningPublicKey.usage), so an empty or
  // repeating list was not written by a participant. Its parser would read empty as every usage
  // (SigningKeyUsage.fromProtoListWithDefault); we refuse rather than sign a key for uses nobody listed.
  if (usage.length === 0) malformed(`${k.what}.usage is empty (Canton would read it as every usage)`);
  if (new Set(usage).size !== usage.length) malformed(`${k.what}.usage repeats a value`);
  return { spki, keySpec, usage };
}
