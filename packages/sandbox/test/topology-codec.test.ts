// The sandbox's topology codec and hashes against Canton's vectors (external-party-keys.md §1.4, §4.5) and
// against the tests' own encoder; generate-topology's bytes and its hosting checks (§3.1).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fingerprintOf } from '../src/keys.ts';
import { decodeTransaction } from '../src/topology/codec.ts';
import { hex, multiHash as sandboxMultiHash } from '../src/topology/hash.ts';
import { call, newKey, publicKeyJson, type Sandbox, sandboxWithAdmin } from './helpers.ts';
import {
  fingerprint,
  multiHash,
  NAMESPACE,
  PROOF_OF_OWNERSHIP,
  PROTOCOL,
  p2p,
  rootNsd,
  txHash,
} from './topology-encoder.ts';
import { GENERATE } from './topology-helpers.ts';

// A PartyToParticipant Canton generated on DevNet (DLC-link decentralization-manager,
// crates/decman/src/workflow/external_party/steps.rs REAL_TRANSACTION_B64), a test vector.
const DEVNET_P2P = [
  'Cq0DCAEQARqmA0qjAwpOcmV2cHJvYmU6OjEyMjBmM2NiZDBjZDIyZGE5MzNlOTMwN2NiMmNhYTEw',
  'NTc3MTc2Zjg1OWRmNWQ5NTRlNzYyNGRlYTRkNzM3ZDcyYjNiEAIaWgpWaUJUQy12YWxpZGF0b3It',
  'MTo6MTIyMGZhODU0M2RiNmM2NmZlM2E1NWIxZjE4MGM4ZGZjN2Y4NzYyNjVjNzY2ODRmYmMxZDM1',
  'ZDg5ZTAyYzhhYWZlOGUQAhpaClZpQlRDLXZhbGlkYXRvci0yOjoxMjIwOTk5NTM5MzRkOWZlMTYz',
  'ZmVkMDdkZDM3MWZhMTM5ODJiMmIzMDc0OWQ2ZGY1NmVjZGJhMzg1ZjhjNzhhODY3YRACGloKVmlC',
  'VEMtdmFsaWRhdG9yLTM6OjEyMjBkNTQ0MTI1ZDM2MTllOWM0ZDczNDA0NjZhNzhhODVmNzM4ZTc1',
  'YTc0MDgzN2ZhNjI4M2ExMDUxNDk0ZjVkZjIzEAIyOwo3EAQaLDAqMAUGAytlcAMhADB0XdntKp6w',
  'Tpwyenkc9DU0waM7lv350MybxMJLiPq3KgMBBAUwARABEB4=',
].join('');

describe('vectors', () => {
  test('fingerprint of a raw Ed25519 key (docs external_signing_topology_transaction.rst)', () => {
    const raw = Buffer.from('2RwUiIHVUVdulxzD8NKtPmIaaBqMer1A90rDjoklJPY=', 'base64');
    expect(fingerprintOf(raw)).toBe('1220205057e331cc8929dd217e2f8e63f503b7081773de60d01fb46839700bc5caaa');
  });

  test('the DevNet PartyToParticipant: three Confirmation hosts, threshold 2, one key [1,4,5], its hashes', () => {
    const tx = decodeTransaction(Buffer.from(DEVNET_P2P, 'base64'));
    expect([tx.operation, tx.serial]).toEqual([1, 1]);
    const m = tx.mapping;
    if (m.kind !== 'PartyToParticipant') throw new Error(m.kind);
    expect(m.threshold).toBe(2);
    expect(m.participants.map((h) => h.permission)).toEqual([2, 2, 2]);
    expect(m.signingKeys?.threshold).toBe(1);
    expect(m.signingKeys?.keys.map((k) => k.usage)).toEqual([[1, 4, 5]]);
    expect(m.signingKeys?.keys[0]?.key.keySpec).toBe('SIGNING_KEY_SPEC_EC_CURVE25519');
    // The party's namespace is the key's fingerprint (over the raw key, though the key is sent as SPKI).
    expect(m.namespace).toBe(m.signingKeys?.keys[0]?.key.fingerprint);
    expect(m.party).toBe(`revprobe::${m.namespace}`);
    expect(tx.hashHex).toBe('122013dc14b011b1e4859622e6481201f86bd682995167a7989c2f7bab305526f4a7');
    expect(hex(sandboxMultiHash([tx.hash]))).toBe(
      '1220e05d16103d1f5fcd4e251d819ffc56dbebd5c6e6aaa2bcc55eaafe5d19b17430',
    );
  });

  test("the tests' encoder and the sandbox's decoder agree, hashes included", () => {
    const [k1, k2, k3] = [newKey('ed25519'), newKey('p256'), newKey('secp256k1')];
    const party = `m::${fingerprint(k1)}`;
    const bytes = p2p({
      party,
      threshold: 1,
      hosts: [
        { uid: `p1::1220${'a'.repeat(64)}`, permission: 2 },
        { uid: `p2::1220${'b'.repeat(64)}`, permission: 3 },
      ],
      keys: [
        { key: k1, usage: [NAMESPACE, PROTOCOL] },
        { key: k2, usage: [PROTOCOL] },
        { key: k3, usage: [] },
      ],
      keyThreshold: 2,
    });
    const tx = decodeTransaction(bytes);
    const m = tx.mapping;
    if (m.kind !== 'PartyToParticipant') throw new Error(m.kind);
    expect(m.signingKeys?.keys.map((k) => k.key.fingerprint)).toEqual([k1, k2, k3].map(fingerprint));
    // An empty usage list is every usage (SigningKeyUsage.fromProtoListWithDefault).
    expect(m.signingKeys?.keys.map((k) => k.usage)).toEqual([[1, 4], [4], [1, 3, 4, 5]]);
    expect(m.participants.map((h) => [h.permission, h.onboarding])).toEqual([
      [2, false],
      [3, false],
    ]);
    expect(tx.hashHex).toBe(txHash(bytes).toString('hex'));
    const nsd = rootNsd(k1);
    const d = decodeTransaction(nsd);
    expect(d.mapping).toMatchObject({ kind: 'NamespaceDelegation', root: true, namespace: fingerprint(k1) });
    expect(hex(sandboxMultiHash([tx.hash, d.hash]))).toBe(multiHash([bytes, nsd]).toString('hex'));
  });

  test('version other than 30, and garbage, do not parse', () => {
    const bytes = p2p({
      party: `x::1220${'c'.repeat(64)}`,
      threshold: 1,
      hosts: [{ uid: `p::1220${'a'.repeat(64)}`, permission: 2 }],
    });
    const v31 = Uint8Array.from(bytes);
    v31[v31.length - 1] = 31;
    expect(() => decodeTransaction(v31)).toThrow(/version 31/);
    expect(() => decodeTransaction(Uint8Array.from([0xff, 0xff]))).toThrow();
  });
});

describe('generate-topology', () => {
  let sb: Sandbox;
  let admin: string;
  beforeAll(async () => {
    ({ sb, admin } = await sandboxWithAdmin({ hosts: ['p2', 'p3'] }));
  });
  afterAll(() => sb?.close());

  test('one self-signed P2P: key usage [1,4,5] as SPKI (RAW migrated), key threshold 1, hosts in request order', async () => {
    const key = newKey('ed25519');
    const [p2, p3] = sb.hosts.map((h) => h.participantId);
    const a = await call(
      sb.url,
      'POST',
      GENERATE,
      {
        synchronizer: sb.state.defaultSynchronizer,
        partyHint: 'gen',
        publicKey: publicKeyJson(key, true),
        otherConfirmingParticipantUids: [p3],
        observingParticipantUids: [p2],
      },
      admin,
    );
    expect(a.status, a.text).toBe(200);
    const expected = p2p({
      party: `gen::${fingerprint(key)}`,
      // 0 = every confirmer: this node and p3.
      threshold: 2,
      hosts: [
        { uid: sb.state.participantId, permission: 2 },
        { uid: p3!, permission: 2 },
        { uid: p2!, permission: 3 },
      ],
      keys: [{ key, usage: [NAMESPACE, PROTOCOL, PROOF_OF_OWNERSHIP] }],
      keyThreshold: 1,
    });
    expect(a.json.topologyTransactions).toEqual([Buffer.from(expected).toString('base64')]);
    expect(a.json.multiHash).toBe(multiHash([expected]).toString('base64'));
    expect(a.json.publicKeyFingerprint).toBe(fingerprint(key));
  });

  const refusals: [string, Record<string, unknown>, (n: string, o: string) => string][] = [
    [
      'this node among the others',
      { otherConfirmingParticipantUids: ['SELF'] },
      (n) => `This participant node (${n}) is also listed in 'otherConfirmingParticipantUids'.`,
    ],
    [
      'a duplicate',
      { otherConfirmingParticipantUids: ['OTHER'], observingParticipantUids: ['OTHER'] },
      (_n, o) => `The following participant ids are listed more than once: ${o}`,
    ],
    ['a negative threshold', { confirmationThreshold: -1 }, () => 'Negative confirmation threshold observed'],
    [
      'a threshold above the confirmers',
      { otherConfirmingParticipantUids: ['OTHER'], confirmationThreshold: 3 },
      () => 'Confirmation threshold exceeds number of confirming participants',
    ],
  ];
  test.each(refusals)('%s is 400 INVALID_ARGUMENT', async (_name, extra, message) => {
    const node = sb.state.participantId;
    const other = sb.hosts[0]!.participantId;
    const fill = (v: unknown) =>
      Array.isArray(v) ? v.map((x) => (x === 'SELF' ? node : x === 'OTHER' ? other : x)) : v;
    const a = await call(
      sb.url,
      'POST',
      GENERATE,
      {
        synchronizer: sb.state.defaultSynchronizer,
        partyHint: 'bad',
        publicKey: publicKeyJson(newKey('ed25519')),
        ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, fill(v)])),
      },
      admin,
    );
    expect([a.status, a.json?.code], a.text).toEqual([400, 'INVALID_ARGUMENT']);
    expect(a.json.cause).toBe(`The submitted request has invalid arguments: ${message(node, other)}`);
  });

  test('each host answers participant-id as itself; its uid is name::fingerprint', async () => {
    for (const h of sb.hosts) {
      const a = await call(h.url, 'GET', '/v2/parties/participant-id', undefined, admin);
      expect(a.json.participantId).toBe(h.participantId);
      expect(h.participantId).toMatch(new RegExp(`^${h.name}::1220[0-9a-f]{64}$`));
    }
  });
});
