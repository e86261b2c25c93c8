// allocate with client-built topology transactions, as the participant checks them (external-party-keys.md
// §1.5–1.7, §4.3(a), §4.5), and execute against the active PartyToParticipant's keys and threshold (§1.8).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  call,
  executeBody,
  type Key,
  newKey,
  type Party,
  prepareOn,
  type Sandbox,
  sandboxWithAdmin,
  tapCommand,
} from './helpers.ts';
import {
  decentralizedNamespaceOf,
  dnd,
  fingerprint,
  NAMESPACE,
  PROTOCOL,
  p2p,
  rootNsd,
  sig,
} from './topology-encoder.ts';
import {
  actor,
  allocate,
  allocateBody,
  executeRefusal,
  executeSignedBy,
  expectLegacy,
} from './topology-helpers.ts';

let sb: Sandbox;
let admin: string;
let node: string;
beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  node = sb.state.participantId;
});
afterAll(() => sb?.close());

const hint = () => `t${Math.random().toString(16).slice(2, 10)}`;
const ARGS = 'The submitted request has invalid arguments: ';
const EXEC = '/v2/interactive-submission/executeAndWaitForTransaction';

/** Layout A: K1 is the namespace key [NAMESPACE, PROTOCOL], the others [PROTOCOL]; M of N. */
function selfSigned(keys: Key[], m: number, extra: Partial<Parameters<typeof p2p>[0]> = {}) {
  const party = `${hint()}::${fingerprint(keys[0]!)}`;
  const tx = p2p({
    party,
    threshold: 1,
    hosts: [{ uid: node, permission: 2 }],
    keys: keys.map((key, i) => ({ key, usage: i === 0 ? [NAMESPACE, PROTOCOL] : [PROTOCOL] })),
    keyThreshold: m,
    ...extra,
  });
  return { party, tx };
}

describe('request checks and onboarding rules', () => {
  test('serial 2 is INVALID_FIELD onboarding_transactions.transaction.serial', async () => {
    const k = newKey('ed25519');
    const { tx } = selfSigned([k], 1, { serial: 2 });
    const a = await allocate(sb.url, admin, allocateBody(sb, { txs: [tx], multi: [k] }));
    expect([a.status, a.json.code], a.text).toEqual([400, 'INVALID_FIELD']);
    expect(a.json.cause).toBe(
      'The submitted command has a field with invalid value: Invalid field onboarding_transactions.transaction.serial: Onboarding transaction serial must be 1',
    );
  });

  test('a second allocate after activation is 400 INVALID_ARGUMENT "already exists on synchronizer"', async () => {
    const k = newKey('ed25519');
    const { party, tx } = selfSigned([k], 1);
    const body = allocateBody(sb, { txs: [tx], multi: [k] });
    const first = await allocate(sb.url, admin, body);
    expect(first.status, first.text).toBe(200);
    expect(first.json.partyId).toBe(party);
    const again = await allocate(sb.url, admin, body);
    expect([again.status, again.json.code], again.text).toEqual([400, 'INVALID_ARGUMENT']);
    expect(again.json.cause).toBe(
      `${ARGS}Party ${party} already exists on synchronizer ${sb.state.defaultSynchronizer}`,
    );
  });

  test('a key without PROTOCOL usage, a namespace key without NAMESPACE: INVALID_ARGUMENT', async () => {
    const [k1, k2] = [newKey('ed25519'), newKey('ed25519')];
    const party = `${hint()}::${fingerprint(k1)}`;
    const noProtocol = p2p({
      party,
      threshold: 1,
      hosts: [{ uid: node, permission: 2 }],
      keys: [
        { key: k1, usage: [NAMESPACE, PROTOCOL] },
        { key: k2, usage: [NAMESPACE] },
      ],
    });
    const a = await allocate(sb.url, admin, allocateBody(sb, { txs: [noProtocol], multi: [k1, k2] }));
    expect(a.json.cause, a.text).toBe(`${ARGS}Missing Protocol usage on signing keys`);
    const nsWithoutNamespace = p2p({
      party,
      threshold: 1,
      hosts: [{ uid: node, permission: 2 }],
      keys: [{ key: k1, usage: [PROTOCOL] }],
    });
    const b = await allocate(sb.url, admin, allocateBody(sb, { txs: [nsWithoutNamespace], multi: [k1] }));
    expect(b.json.cause, b.text).toBe(
      `${ARGS}Missing Namespace and Protocol usage on the party namespace key`,
    );
  });

  test('a single host that is another node, or Submission permission: INVALID_ARGUMENT', async () => {
    const k = newKey('ed25519');
    const other = `elsewhere::1220${'d'.repeat(64)}`;
    const { tx } = selfSigned([k], 1, { hosts: [{ uid: other, permission: 2 }] });
    const a = await allocate(sb.url, admin, allocateBody(sb, { txs: [tx], multi: [k] }));
    expect(a.json.cause, a.text).toContain(`Submit the allocation request on ${other} instead.`);
    const { tx: sub } = selfSigned([k], 1, { hosts: [{ uid: node, permission: 1 }] });
    const b = await allocate(sb.url, admin, allocateBody(sb, { txs: [sub], multi: [k] }));
    expect(b.json.cause, b.text).toContain('must not contain any node with Submission permission');
  });

  test('a signing threshold above the key count: TOPOLOGY_SIGNING_THRESHOLD_CANNOT_BE_REACHED as INVALID_ARGUMENT', async () => {
    const [k1, k2] = [newKey('ed25519'), newKey('ed25519')];
    const { tx } = selfSigned([k1, k2], 3);
    const a = await allocate(sb.url, admin, allocateBody(sb, { txs: [tx], multi: [k1, k2] }));
    expect([a.status, a.json.code], a.text).toEqual([400, 'INVALID_ARGUMENT']);
    expect(a.json.cause).toBe(
      `${ARGS}Tried to set a signing threshold (3) above the number of signing keys (2).`,
    );
  });

  test('a duplicated key is refused', async () => {
    const k1 = newKey('ed25519');
    const { tx } = selfSigned([k1, k1], 1);
    const a = await allocate(sb.url, admin, allocateBody(sb, { txs: [tx], multi: [k1] }));
    expect([a.status, a.json.code], a.text).toEqual([400, 'INVALID_ARGUMENT']);
    expect(a.json.cause).toContain('All signing keys must be unique');
  });

  test('an unknown host is TOPOLOGY_UNKNOWN_MEMBERS (ResourceMissing: NOT_FOUND, 404)', async () => {
    const k = newKey('ed25519');
    const stranger = `stranger::1220${'e'.repeat(64)}`;
    const { tx } = selfSigned([k], 1, {
      hosts: [
        { uid: node, permission: 2 },
        { uid: stranger, permission: 2 },
      ],
    });
    const a = await allocate(sb.url, admin, allocateBody(sb, { txs: [tx], multi: [k] }));
    expect(expectLegacy(a, 'TOPOLOGY_UNKNOWN_MEMBERS', 404, 5).code).toContain(
      `Members PAR::${stranger} are unknown.`,
    );
  });
});

describe('authorization (single host: fully allocated or refused)', () => {
  test("2-of-3 self-signed without the third key's proof of possession: TOPOLOGY_UNAUTHORIZED_TRANSACTION naming it", async () => {
    const keys = [newKey('ed25519'), newKey('p256'), newKey('ed25519')];
    const { party, tx } = selfSigned(keys, 2);
    const a = await allocate(
      sb.url,
      admin,
      allocateBody(sb, { txs: [tx], multi: [keys[0]!], perTx: { 0: [keys[1]!] } }),
    );
    const e = expectLegacy(a, 'TOPOLOGY_UNAUTHORIZED_TRANSACTION');
    expect(e.code).toContain(
      `Topology transaction is missing authorizations by namespaces=Set() and keys=Set(${fingerprint(keys[2]!)})`,
    );
    const parties = await call(sb.url, 'GET', `/v2/parties/${party}`, undefined, admin);
    expect(parties.json.partyDetails).toEqual([]);
  });

  test('a multi-hash signature over more transactions than sent: TOPOLOGY_INVALID_TX_SIGNATURE', async () => {
    const k = newKey('ed25519');
    const { tx } = selfSigned([k], 1);
    const full = allocateBody(sb, { txs: [tx, rootNsd(newKey('ed25519'))], multi: [k] });
    const subset = { ...full, onboardingTransactions: full.onboardingTransactions.slice(0, 1) };
    expectLegacy(await allocate(sb.url, admin, subset), 'TOPOLOGY_INVALID_TX_SIGNATURE');
  });

  test('every key signing its own transaction hash also works (either style)', async () => {
    const keys = [newKey('ed25519'), newKey('secp256k1')];
    const { party, tx } = selfSigned(keys, 2);
    const a = await allocate(sb.url, admin, allocateBody(sb, { txs: [tx], perTx: { 0: keys } }));
    expect(a.status, a.text).toBe(200);
    expect(a.json.partyId).toBe(party);
  });
});

describe('layout B: a NAMESPACE-only K0 with a root delegation, 2-of-3 PROTOCOL keys', () => {
  let party: Party;
  let k: Key[];
  beforeAll(async () => {
    const k0 = newKey('ed25519');
    k = [newKey('ed25519'), newKey('p256'), newKey('ed25519')];
    const partyId = `${hint()}::${fingerprint(k0)}`;
    const tx = p2p({
      party: partyId,
      threshold: 1,
      hosts: [{ uid: node, permission: 2 }],
      keys: k.map((key) => ({ key, usage: [PROTOCOL] })),
      keyThreshold: 2,
    });
    const a = await allocate(
      sb.url,
      admin,
      allocateBody(sb, { txs: [rootNsd(k0), tx], multi: [k0], perTx: { 1: k } }),
    );
    expect(a.status, a.text).toBe(200);
    party = await actor(sb, admin, partyId, k[0]!);
  });

  test('the party is visible once allocated', async () => {
    const a = await call(sb.url, 'GET', `/v2/parties/${party.partyId}`, undefined, admin);
    expect(a.json.partyDetails.map((p: { party: string }) => p.party)).toEqual([party.partyId]);
  });

  test('executes with 2 valid signatures (V2 and V3)', async () => {
    for (const scheme of ['HASHING_SCHEME_VERSION_V2', 'HASHING_SCHEME_VERSION_V3'] as const) {
      const { a } = await executeSignedBy(sb, party, [k[0]!, k[2]!], scheme);
      expect(a.status, a.text).toBe(200);
    }
  });

  test('is refused with 1 (M−1) valid signature: the exact FAILED_TO_EXECUTE_TRANSACTION cause', async () => {
    const { a, hashHex } = await executeSignedBy(sb, party, [k[1]!]);
    expect([a.status, a.json.code], a.text).toEqual([400, 'FAILED_TO_EXECUTE_TRANSACTION']);
    expect(a.json.cause).toBe(executeRefusal(party.partyId, 1, 0, 2, hashHex));
  });

  test('two signatures by the same key count once', async () => {
    const { a, hashHex } = await executeSignedBy(sb, party, [k[0]!, k[0]!]);
    expect(a.json.cause, a.text).toBe(executeRefusal(party.partyId, 1, 0, 2, hashHex));
  });

  test('a signature by a key outside the list is invalid', async () => {
    const { a, hashHex } = await executeSignedBy(sb, party, [k[0]!, newKey('ed25519')]);
    expect(a.json.cause, a.text).toBe(executeRefusal(party.partyId, 1, 1, 2, hashHex));
  });

  test('more signatures than PROTOCOL keys: refused on V3 (protocol 35), accepted on V2', async () => {
    const four = [k[0]!, k[1]!, k[2]!, k[0]!];
    const v3 = await executeSignedBy(sb, party, four, 'HASHING_SCHEME_VERSION_V3');
    expect([v3.a.status, v3.a.json.code], v3.a.text).toEqual([400, 'FAILED_TO_EXECUTE_TRANSACTION']);
    expect(v3.a.json.cause).toBe(
      `The participant failed to execute the transaction: 4 external signatures were provided, which is more than the number of registered signing keys (3) with protocol usage for ${party.partyId}`,
    );
    const v2 = await executeSignedBy(sb, party, four, 'HASHING_SCHEME_VERSION_V2');
    expect(v2.a.status, v2.a.text).toBe(200);
  });

  test('two entries for the party are merged; signatures only for another party leave actAs unsigned', async () => {
    const prepared = await prepareOn(sb, party, [tapCommand(sb, party.partyId, '1.0000000000')]);
    const hash = Buffer.from(prepared.preparedTransactionHash, 'base64');
    const merged = executeBody(party, prepared);
    merged.partySignatures = {
      signatures: [
        { party: party.partyId, signatures: [sig(k[0]!, hash)] },
        { party: party.partyId, signatures: [sig(k[1]!, hash)] },
      ],
    };
    const ok = await call(sb.url, 'POST', EXEC, merged, party.token);
    expect(ok.status, ok.text).toBe(200);
    const again = await prepareOn(sb, party, [tapCommand(sb, party.partyId, '1.0000000000')]);
    const other = executeBody(party, again);
    other.partySignatures = { signatures: [{ party: `someone::1220${'1'.repeat(64)}`, signatures: [] }] };
    const refused = await call(sb.url, 'POST', EXEC, other, party.token);
    expect([refused.status, refused.json.code], refused.text).toEqual([400, 'FAILED_TO_EXECUTE_TRANSACTION']);
    expect(refused.json.cause).toBe(
      `The participant failed to execute the transaction: The following actAs parties did not provide an external signature: ${party.partyId}`,
    );
  });

  test('the NAMESPACE-only K0 is not a signing key: without the P2P keys, execute finds 0 valid', async () => {
    const k0Only = await executeSignedBy(sb, party, [newKey('ed25519')]);
    expect(k0Only.a.json.cause).toContain('Received 0 valid signatures from distinct keys (1 invalid)');
  });
});

describe('layout C: a decentralized namespace of two owners', () => {
  test("owners' root delegations, the DND (every owner signs serial 1) and the P2P in one request", async () => {
    const owners = [newKey('ed25519'), newKey('p256')];
    const ns = owners.map(fingerprint);
    const partyId = `${hint()}::${decentralizedNamespaceOf(ns)}`;
    const keys = [newKey('ed25519'), newKey('ed25519')];
    const party = p2p({
      party: partyId,
      threshold: 1,
      hosts: [{ uid: node, permission: 2 }],
      keys: keys.map((key) => ({ key, usage: [PROTOCOL] })),
      keyThreshold: 2,
    });
    const txs = [rootNsd(owners[0]!), rootNsd(owners[1]!), dnd(ns, 2), party];
    const missingOwner = await allocate(
      sb.url,
      admin,
      allocateBody(sb, { txs, multi: [owners[0]!], perTx: { 3: keys } }),
    );
    expectLegacy(missingOwner, 'TOPOLOGY_UNAUTHORIZED_TRANSACTION');
    const a = await allocate(sb.url, admin, allocateBody(sb, { txs, multi: owners, perTx: { 3: keys } }));
    expect(a.status, a.text).toBe(200);
    expect(a.json.partyId).toBe(partyId);
    const listed = await call(sb.url, 'GET', `/v2/parties/${partyId}`, undefined, admin);
    expect(listed.json.partyDetails).toHaveLength(1);
  });
});
