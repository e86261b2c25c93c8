// Known answers: the docs' fingerprint vector, a PartyToParticipant Canton really produced on DevNet, and
// hand-assembled bytes for two small transactions.
import { generateKeyPairSync } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import {
  decodeTopologyTransaction,
  encodeTopologyTransaction,
  hex,
  keyFingerprint,
  type PartyToParticipant,
  partyToParticipantProblem,
  TopologyError,
  type TopologyTransaction,
  topologyMultiHash,
  topologyTransactionHash,
} from '../../src/topology/index.ts';

const ED25519_SPKI_PREFIX = '302a300506032b6570032100';
const spkiOfRaw = (raw: Uint8Array) =>
  new Uint8Array(Buffer.concat([Buffer.from(ED25519_SPKI_PREFIX, 'hex'), raw]));

// Captured by DLC-link from GenerateTransactions on a DevNet participant (Canton 3.5): REAL_TRANSACTION_B64 in
// DLC-link/decentralization-manager crates/decman/src/workflow/external_party/steps.rs. Data, not code.
const DEVNET_B64 = [
  'Cq0DCAEQARqmA0qjAwpOcmV2cHJvYmU6OjEyMjBmM2NiZDBjZDIyZGE5MzNlOTMwN2NiMmNhYTEw',
  'NTc3MTc2Zjg1OWRmNWQ5NTRlNzYyNGRlYTRkNzM3ZDcyYjNiEAIaWgpWaUJUQy12YWxpZGF0b3It',
  'MTo6MTIyMGZhODU0M2RiNmM2NmZlM2E1NWIxZjE4MGM4ZGZjN2Y4NzYyNjVjNzY2ODRmYmMxZDM1',
  'ZDg5ZTAyYzhhYWZlOGUQAhpaClZpQlRDLXZhbGlkYXRvci0yOjoxMjIwOTk5NTM5MzRkOWZlMTYz',
  'ZmVkMDdkZDM3MWZhMTM5ODJiMmIzMDc0OWQ2ZGY1NmVjZGJhMzg1ZjhjNzhhODY3YRACGloKVmlC',
  'VEMtdmFsaWRhdG9yLTM6OjEyMjBkNTQ0MTI1ZDM2MTllOWM0ZDczNDA0NjZhNzhhODVmNzM4ZTc1',
  'YTc0MDgzN2ZhNjI4M2ExMDUxNDk0ZjVkZjIzEAIyOwo3EAQaLDAqMAUGAytlcAMhADB0XdntKp6w',
  'Tpwyenkc9DU0waM7lv350MybxMJLiPq3KgMBBAUwARABEB4=',
].join('');
const devnet = new Uint8Array(Buffer.from(DEVNET_B64, 'base64'));

describe('keyFingerprint', () => {
  it("matches the docs' Ed25519 vector (external_signing_topology_transaction.rst), given as SPKI", () => {
    const raw = Buffer.from('2RwUiIHVUVdulxzD8NKtPmIaaBqMer1A90rDjoklJPY=', 'base64');
    expect(keyFingerprint(spkiOfRaw(raw), 'SIGNING_KEY_SPEC_EC_CURVE25519')).toBe(
      '1220205057e331cc8929dd217e2f8e63f503b7081773de60d01fb46839700bc5caaa',
    );
  });

  it('hashes EC keys over the SPKI as sent (purpose 12), for real keys of every spec', () => {
    const cases = [
      ['prime256v1', 'SIGNING_KEY_SPEC_EC_P256'],
      ['secp384r1', 'SIGNING_KEY_SPEC_EC_P384'],
      ['secp256k1', 'SIGNING_KEY_SPEC_EC_SECP256K1'],
    ] as const;
    for (const [curve, spec] of cases) {
      const { publicKey } = generateKeyPairSync('ec', { namedCurve: curve });
      const spki = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }));
      const expected = `1220${hex(sha256(new Uint8Array([0, 0, 0, 12, ...spki])))}`;
      expect(keyFingerprint(spki, spec)).toBe(expected);
    }
    const { publicKey } = generateKeyPairSync('ed25519');
    const spki = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }));
    const raw = spki.subarray(12);
    expect(keyFingerprint(spki, 'SIGNING_KEY_SPEC_EC_CURVE25519')).toBe(
      `1220${hex(sha256(new Uint8Array([0, 0, 0, 12, ...raw])))}`,
    );
  });

  it('refuses an Ed25519 key that is not the 44-byte SPKI', () => {
    const raw = new Uint8Array(32).fill(7);
    const bad = [raw, spkiOfRaw(raw).subarray(0, 43), new Uint8Array([...spkiOfRaw(raw), 0])];
    const wrongOid = spkiOfRaw(raw);
    wrongOid[8] = 0x71; // Ed448's OID arc
    for (const b of [...bad, wrongOid]) {
      expect(() => keyFingerprint(b, 'SIGNING_KEY_SPEC_EC_CURVE25519')).toThrow(TopologyError);
    }
    expect(() => keyFingerprint(new Uint8Array([0x30, 0x05, 1]), 'SIGNING_KEY_SPEC_EC_P256')).toThrow(
      /DER length/,
    );
  });
});

describe('the DevNet PartyToParticipant (Canton 3.5 output)', () => {
  const tx = decodeTopologyTransaction(devnet);

  it('decodes to a 2-of-3-host, 1-of-1-key self-signed party', () => {
    expect(tx.operation).toBe('add-replace');
    expect(tx.serial).toBe(1);
    const m = tx.mapping as PartyToParticipant;
    expect(m.kind).toBe('party-to-participant');
    expect(m.party).toBe('revprobe::1220f3cbd0cd22da933e9307cb2caa10577176f859df5d954e7624dea4d737d72b3b');
    expect(m.threshold).toBe(2);
    expect(m.participants.map((p) => p.permission)).toEqual(['confirmation', 'confirmation', 'confirmation']);
    expect(m.participants.map((p) => p.uid.split('::')[0])).toEqual([
      'iBTC-validator-1',
      'iBTC-validator-2',
      'iBTC-validator-3',
    ]);
    expect(m.participants.every((p) => p.onboarding === undefined)).toBe(true);
    expect(m.signingKeys?.threshold).toBe(1);
    expect(m.signingKeys?.keys).toHaveLength(1);
    const key = m.signingKeys!.keys[0]!;
    expect(key.keySpec).toBe('SIGNING_KEY_SPEC_EC_CURVE25519');
    expect(key.usage).toEqual(['namespace', 'protocol', 'proof-of-ownership']);
    expect(hex(key.spki)).toBe(
      `${ED25519_SPKI_PREFIX}30745dd9ed2a9eb04e9c327a791cf43534c1a33b96fdf9d0cc9bc4c24b88fab7`,
    );
    // Self-signed: the key's fingerprint (over the raw key) is the party's namespace.
    expect(keyFingerprint(key.spki, key.keySpec)).toBe(m.party.split('::')[1]);
    expect(partyToParticipantProblem(m)).toBeUndefined();
  });

  it('has the transaction hash and single-transaction multi-hash of the reference (§1.4)', () => {
    expect(hex(topologyTransactionHash(devnet))).toBe(
      '122013dc14b011b1e4859622e6481201f86bd682995167a7989c2f7bab305526f4a7',
    );
    expect(hex(topologyMultiHash([devnet]))).toBe(
      '1220e05d16103d1f5fcd4e251d819ffc56dbebd5c6e6aaa2bcc55eaafe5d19b17430',
    );
  });

  it('re-encodes to the identical bytes', () => {
    expect(hex(encodeTopologyTransaction(tx))).toBe(hex(devnet));
  });
});

describe('hand-assembled bytes', () => {
  it('a one-host PartyToParticipant', () => {
    const tx: TopologyTransaction = {
      operation: 'add-replace',
      serial: 1,
      mapping: {
        kind: 'party-to-participant',
        party: 'a',
        threshold: 1,
        participants: [{ uid: 'b', permission: 'confirmation' }],
      },
    };
    // HostingParticipant: 0a 01 'b'(62)       uid = "b"                          (field 1, LEN)
    //                     10 02               permission = CONFIRMATION           (field 2, varint)   = 5 bytes
    // PartyToParticipant: 0a 01 'a'(61)       party = "a"
    //                     10 01               threshold = 1
    //                     1a 05 <host>        participants[0]                     (field 3, LEN 5)    = 12 bytes
    // TopologyMapping:    4a 0c <p2p>         party_to_participant                (field 9 → 9<<3|2 = 0x4a) = 14
    // TopologyTransaction: 08 01              operation = ADD_REPLACE
    //                     10 01               serial = 1
    //                     1a 0e <mapping>     mapping                             (field 3, LEN 14)   = 20 bytes
    // UntypedVersionedMessage: 0a 14 <tx>     data (field 1, LEN 20)
    //                     10 1e               version = 30                                           = 24 bytes
    const expected =
      '0a14' + '0801' + '1001' + '1a0e' + '4a0c' + '0a0161' + '1001' + '1a05' + '0a0162' + '1002' + '101e';
    const bytes = encodeTopologyTransaction(tx);
    expect(hex(bytes)).toBe(expected);
    expect(decodeTopologyTransaction(bytes)).toEqual(tx);
  });

  it('a NamespaceDelegation restricted to specific mappings (packed), and an onboarding host', () => {
    const tx: TopologyTransaction = {
      operation: 'remove',
      serial: 2,
      mapping: {
        kind: 'namespace-delegation',
        namespace: 'n',
        targetKey: {
          spki: new Uint8Array([1, 2]),
          keySpec: 'SIGNING_KEY_SPEC_EC_P256',
          usage: ['namespace'],
        },
        restriction: { kind: 'specific', mappings: [9, 1] },
      },
    };
    // SigningPublicKey: 10 04 (format = DER SPKI) 1a 02 01 02 (public_key) 2a 01 01 (usage packed [NAMESPACE])
    //                   30 02 (key_spec = EC_P256)                                                   = 11 bytes
    // NamespaceDelegation: 0a 01 'n'(6e), 12 0b <key>, 32 04 [0a 02 09 01] (can_sign_specific_mapings)  = 22
    // TopologyMapping: 0a 16 <nsd> = 24; TopologyTransaction: 08 02 10 02 1a 18 <mapping> = 30; wrapper: 0a 1e … 10 1e
    const expected =
      '0a1e' +
      '0802' +
      '1002' +
      '1a18' +
      '0a16' +
      '0a016e' +
      '120b' +
      '1004' +
      '1a020102' +
      '2a0101' +
      '3002' +
      '3204' +
      '0a020901' +
      '101e';
    const bytes = encodeTopologyTransaction(tx);
    expect(hex(bytes)).toBe(expected);
    expect(decodeTopologyTransaction(bytes)).toEqual(tx);

    const onboarding: TopologyTransaction = {
      operation: 'add-replace',
      serial: 3,
      mapping: {
        kind: 'party-to-participant',
        party: 'a',
        threshold: 1,
        participants: [{ uid: 'b', permission: 'observation', onboarding: true }],
      },
    };
    // The host gains 1a 00 (an empty Onboarding message, field 3): host 7 bytes, P2P 14, mapping 16, tx 22.
    expect(hex(encodeTopologyTransaction(onboarding))).toBe(
      '0a16' +
        '0801' +
        '1003' +
        '1a10' +
        '4a0e' +
        '0a0161' +
        '1001' +
        '1a07' +
        '0a0162' +
        '1003' +
        '1a00' +
        '101e',
    );
  });
});
