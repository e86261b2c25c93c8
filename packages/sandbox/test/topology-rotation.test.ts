// Key rotation through the topology store's AddTransactions (the admin API path, external-party-keys.md §2.1,
// §4.3(c)): serial = active + 1, the namespace and every added key sign, removing a key needs the namespace
// only, a self-signed mapping must keep its namespace key; execute uses the new key set at once.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SandboxError } from '../src/errors.ts';
import type { AddedTransaction } from '../src/topology/store.ts';
import { call, type Key, newKey, type Party, type Sandbox, sandboxWithAdmin, signWith } from './helpers.ts';
import { fingerprint, multiHash, NAMESPACE, PROTOCOL, p2p, rootNsd, txHash } from './topology-encoder.ts';
import { actor, allocate, allocateBody, executeRefusal, executeSignedBy } from './topology-helpers.ts';

let sb: Sandbox;
let admin: string;
let node: string;
beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  node = sb.state.participantId;
});
afterAll(() => sb?.close());

/** A TopologySignature of `k` over `message`. */
function tsig(k: Key, message: Uint8Array) {
  const s = signWith(k, message, fingerprint(k));
  return {
    ...s,
    signature: new Uint8Array(Buffer.from(s.signature, 'base64')),
  } as AddedTransaction['signatures'][number];
}

function add(tx: Uint8Array, signers: Key[], extra: Partial<AddedTransaction> = {}) {
  return sb.state.topology.addTransactions(
    [
      {
        transaction: tx,
        signatures: signers.map((k) => tsig(k, txHash(tx))),
        multiTransactionSignatures: [],
        proposal: false,
        ...extra,
      },
    ],
    { synchronizerId: sb.state.defaultSynchronizer, participantId: node },
  );
}

function thrown(f: () => unknown): SandboxError {
  try {
    f();
  } catch (e) {
    return e as SandboxError;
  }
  throw new Error('did not throw');
}

describe('layout B: rotate K1 out for K4', () => {
  let k0: Key;
  let k: Key[];
  let party: Party;
  const mapping = (keys: Key[], serial: number) =>
    p2p({
      party: party.partyId,
      threshold: 1,
      hosts: [{ uid: node, permission: 2 }],
      keys: keys.map((key) => ({ key, usage: [PROTOCOL] })),
      keyThreshold: 2,
      serial,
    });

  beforeAll(async () => {
    k0 = newKey('ed25519');
    k = [newKey('ed25519'), newKey('p256'), newKey('ed25519'), newKey('secp256k1')];
    const partyId = `rot::${fingerprint(k0)}`;
    party = { partyId } as Party;
    const tx = mapping(k.slice(0, 3), 1);
    const a = await allocate(
      sb.url,
      admin,
      allocateBody(sb, { txs: [rootNsd(k0), tx], multi: [k0], perTx: { 1: k.slice(0, 3) } }),
    );
    expect(a.status, a.text).toBe(200);
    party = await actor(sb, admin, partyId, k[0]!);
  });

  test('serial 2 adding K4 without its signature is TOPOLOGY_UNAUTHORIZED_TRANSACTION naming K4', () => {
    const e = thrown(() => add(mapping(k, 2), [k0]));
    expect(e.code).toBe('TOPOLOGY_UNAUTHORIZED_TRANSACTION');
    expect(e.cause_).toBe(
      `Topology transaction is missing authorizations by namespaces=Set() and keys=Set(${fingerprint(k[3]!)})`,
    );
  });

  test('a serial that is not active + 1 is TOPOLOGY_SERIAL_MISMATCH', () => {
    const e = thrown(() => add(mapping(k, 5), [k0, k[3]!]));
    expect([e.code, e.cause_]).toEqual([
      'TOPOLOGY_SERIAL_MISMATCH',
      'The provided serial Some(5) did not match the expected serial Some(2).',
    ]);
  });

  test('a multi-transaction signature must cover the transaction', () => {
    const tx = mapping(k, 2);
    const other = mapping(k.slice(0, 2), 2);
    const e = thrown(() =>
      add(tx, [k[3]!], {
        multiTransactionSignatures: [{ transactionHashes: [txHash(other)], signatures: [] }],
      }),
    );
    expect(e.code).toBe('TOPOLOGY_MULTI_TRANSACTION_HASH_MISMATCH');
  });

  test('serial 2 (add K4, K0 over a multi-hash) then serial 3 (remove K1, K0 only): K1 no longer counts', async () => {
    const two = mapping(k, 2);
    const [s2] = sb.state.topology.addTransactions(
      [
        {
          transaction: two,
          signatures: [tsig(k[3]!, txHash(two))],
          multiTransactionSignatures: [
            { transactionHashes: [txHash(two)], signatures: [tsig(k0, multiHash([two]))] },
          ],
          proposal: false,
        },
      ],
      { synchronizerId: sb.state.defaultSynchronizer, participantId: node },
    );
    expect(s2).toMatchObject({ serial: 2, proposal: false });
    expect((await executeSignedBy(sb, party, [k[0]!, k[3]!])).a.status).toBe(200);

    const [s3] = add(mapping(k.slice(1), 3), [k0]);
    expect(s3).toMatchObject({ serial: 3, proposal: false });
    const [active] = sb.state.topology.listPartyToParticipant({ filterParty: 'rot::', proposals: false });
    expect(active!.serial).toBe(3);

    const old = await executeSignedBy(sb, party, [k[0]!, k[1]!]);
    expect(old.a.json.cause, old.a.text).toBe(executeRefusal(party.partyId, 1, 1, 2, old.hashHex));
    expect((await executeSignedBy(sb, party, [k[1]!, k[3]!])).a.status).toBe(200);
  });

  test('no PROTOCOL-usage check on the admin path: a NAMESPACE-only key may be listed (it just never signs a transaction)', () => {
    const extra = newKey('ed25519');
    const tx = p2p({
      party: party.partyId,
      threshold: 1,
      hosts: [{ uid: node, permission: 2 }],
      keys: [...k.slice(1), extra].map((key, i) => ({ key, usage: i === 3 ? [NAMESPACE] : [PROTOCOL] })),
      keyThreshold: 2,
      serial: 4,
    });
    expect(add(tx, [k0, extra])[0]).toMatchObject({ serial: 4, proposal: false });
  });
});

describe('layout A: the self-signed namespace key must stay', () => {
  test('dropping it is TOPOLOGY_UNAUTHORIZED_TRANSACTION (no namespace authority left)', async () => {
    const [k1, k2] = [newKey('ed25519'), newKey('ed25519')];
    const partyId = `self::${fingerprint(k1)}`;
    const one = p2p({
      party: partyId,
      threshold: 1,
      hosts: [{ uid: node, permission: 2 }],
      keys: [
        { key: k1, usage: [NAMESPACE, PROTOCOL] },
        { key: k2, usage: [PROTOCOL] },
      ],
    });
    expect((await allocate(sb.url, admin, allocateBody(sb, { txs: [one], multi: [k1, k2] }))).status).toBe(
      200,
    );
    const two = p2p({
      party: partyId,
      threshold: 1,
      hosts: [{ uid: node, permission: 2 }],
      keys: [{ key: k2, usage: [PROTOCOL] }],
      serial: 2,
    });
    const e = thrown(() => add(two, [k1, k2]));
    expect([e.code, e.cause_]).toEqual([
      'TOPOLOGY_UNAUTHORIZED_TRANSACTION',
      'Topology transaction is not properly authorized by any namespace key',
    ]);
  });
});

describe('REMOVE', () => {
  test('the unchanged mapping at serial + 1, signed by the namespace: the party is gone; a changed one is refused', async () => {
    const k1 = newKey('ed25519');
    const partyId = `gone::${fingerprint(k1)}`;
    const base = {
      party: partyId,
      threshold: 1,
      hosts: [{ uid: node, permission: 2 as const }],
      keys: [{ key: k1, usage: [NAMESPACE, PROTOCOL] }],
    };
    expect((await allocate(sb.url, admin, allocateBody(sb, { txs: [p2p(base)], multi: [k1] }))).status).toBe(
      200,
    );
    const changed = p2p({
      ...base,
      threshold: 1,
      hosts: [{ uid: node, permission: 3 }],
      serial: 2,
      operation: 2,
    });
    expect(thrown(() => add(changed, [k1])).code).toBe('TOPOLOGY_REMOVE_MUST_NOT_CHANGE_MAPPING');
    expect(add(p2p({ ...base, serial: 2, operation: 2 }), [k1])[0]).toMatchObject({
      operation: 'remove',
      serial: 2,
    });
    expect(sb.state.topology.listPartyToParticipant({ filterParty: partyId, proposals: false })).toEqual([]);
    const a = await call(sb.url, 'GET', `/v2/parties/${partyId}`, undefined, admin);
    expect(a.json.partyDetails).toEqual([]);
  });
});
