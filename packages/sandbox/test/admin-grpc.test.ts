// The sandbox's Admin API over real gRPC, end to end with Quill's TopologyAdminClient on a loopback port.
// The topology store here is a stand-in with simple rules (serial = active + 1, proposals promoted by Authorize,
// everything else accepted) until the real store (src/topology/store.ts) is merged; it records what the
// server hands it so the translation can be checked.
import { AdminApiError, type AdminSignature, TopologyAdminClient } from '@quill/canton/admin';
import {
  decodeVersionedTopologyTransaction,
  Enums_TopologyChangeOp,
  encodeVersionedTopologyTransaction,
} from '@quill/canton/admin/wire';
import { topologyTransactionHash } from '@quill/canton/transaction';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { type AdminApiServer, startAdminApi, type TopologyStoreApi } from '../src/admin/grpc.ts';
import { SandboxError } from '../src/errors.ts';
import type { StoredTopologyTransaction, TopologySignature } from '../src/topology/store.ts';

const NS = `1220${'ab'.repeat(32)}`;
const SYNC = `global::${NS}`;
const PARTICIPANT = `participant1::${NS}`;
const ALICE = `alice::${NS}`;
const FP = `1220${'ef'.repeat(32)}`;
const SIG = new Uint8Array(64).fill(0x5a);
const sig: AdminSignature = {
  signedBy: FP,
  format: 'SIGNATURE_FORMAT_CONCAT',
  signature: SIG,
  signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
};

type AddArgs = Parameters<TopologyStoreApi['addTransactions']>;

class StandInStore implements TopologyStoreApi {
  active = new Map<string, StoredTopologyTransaction>();
  proposals = new Map<string, StoredTopologyTransaction>();
  adds: AddArgs[] = [];
  authorizations: { hashHex: string; opts: { participantId: string; synchronizerId: string } }[] = [];
  fail: Error | undefined;

  listPartyToParticipant(q: {
    filterParty: string;
    proposals: boolean;
    synchronizerId?: string;
  }): StoredTopologyTransaction[] {
    // Like the node (GrpcTopologyManagerReadService): a prefix of the party id string.
    return [...(q.proposals ? this.proposals : this.active).values()].filter(
      (t) =>
        t.partyId.startsWith(q.filterParty) &&
        (q.synchronizerId === undefined || t.synchronizerId === q.synchronizerId),
    );
  }

  addTransactions(...[txs, opts]: AddArgs): StoredTopologyTransaction[] {
    if (this.fail) throw this.fail;
    this.adds.push([txs, opts]);
    return txs.map((t) => {
      const decoded = decodeVersionedTopologyTransaction(t.transaction);
      const m = decoded.mapping?.mapping;
      if (m?.oneofKind !== 'partyToParticipant') throw new Error('stand-in store: P2P only');
      const stored: StoredTopologyTransaction = {
        transaction: t.transaction,
        hashHex: Buffer.from(topologyTransactionHash(t.transaction)).toString('hex'),
        serial: decoded.serial,
        operation: decoded.operation === Enums_TopologyChangeOp.REMOVE ? 'remove' : 'add-replace',
        partyId: m.partyToParticipant.party,
        proposal: t.proposal,
        signedBy: t.signatures.map((s) => s.signedBy),
        validFrom: '2026-06-01T10:00:00.000Z',
        synchronizerId: opts.synchronizerId,
      };
      this.checkSerial(stored);
      if (t.proposal) this.proposals.set(stored.hashHex, stored);
      else this.active.set(stored.partyId, stored);
      return stored;
    });
  }

  authorize(
    hashHex: string,
    opts: { participantId: string; synchronizerId: string },
  ): StoredTopologyTransaction {
    this.authorizations.push({ hashHex, opts });
    const p = this.proposals.get(hashHex);
    if (!p) {
      throw new SandboxError(
        'TOPOLOGY_TRANSACTION_NOT_FOUND',
        11,
        `Topology transaction with hash ${hashHex} does not exist or is not active or is not an active proposal`,
      );
    }
    this.checkSerial(p);
    this.proposals.delete(hashHex);
    const promoted = {
      ...p,
      proposal: false,
      signedBy: [...p.signedBy, opts.participantId.split('::')[1] as string],
    };
    this.active.set(p.partyId, promoted);
    return promoted;
  }

  private checkSerial(t: StoredTopologyTransaction): void {
    const expected = (this.active.get(t.partyId)?.serial ?? 0) + 1;
    if (t.serial !== expected) {
      throw new SandboxError(
        'TOPOLOGY_SERIAL_MISMATCH',
        9,
        `The provided serial ${t.serial} did not match the expected serial ${expected}.`,
      );
    }
  }
}

function p2p(party: string, serial: number, threshold = 1): Uint8Array {
  return encodeVersionedTopologyTransaction({
    operation: Enums_TopologyChangeOp.ADD_REPLACE,
    serial,
    mapping: {
      mapping: {
        oneofKind: 'partyToParticipant',
        partyToParticipant: {
          party,
          threshold,
          participants: [{ participantUid: PARTICIPANT, permission: 2 }],
        },
      },
    },
  });
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

let store: StandInStore;
let server: AdminApiServer;
let client: TopologyAdminClient;
const extra: { close(): unknown }[] = [];

beforeAll(async () => {
  store = new StandInStore();
  server = await startAdminApi(store, { participantId: PARTICIPANT });
  client = new TopologyAdminClient({ url: server.url });
});

afterEach(async () => {
  store.fail = undefined;
  for (const x of extra.splice(0)) await x.close();
});

afterAll(async () => {
  client.close();
  await server.close();
});

async function rejection(p: Promise<unknown>): Promise<AdminApiError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AdminApiError);
  return e as AdminApiError;
}

describe('round trip over gRPC', () => {
  test('add serial 1, list it, propose serial 2, authorize it by hash, list serial 2', async () => {
    const first = p2p(ALICE, 1);
    await client.addTransactions([{ transaction: first, signatures: [sig] }], { synchronizerId: SYNC });
    const [s1, ...rest1] = await client.listPartyToParticipant({ party: ALICE, synchronizerId: SYNC });
    expect(rest1).toEqual([]);
    expect(s1).toEqual({
      serial: 1,
      transaction: first,
      transactionHash: hex(topologyTransactionHash(first)),
      proposal: false,
      validFrom: '2026-06-01T10:00:00.000Z',
      partyId: ALICE,
    });

    const second = p2p(ALICE, 2, 1);
    await client.addTransactions([{ transaction: second, signatures: [sig], proposal: true }], {
      synchronizerId: SYNC,
      waitToBecomeEffectiveMs: 2000,
    });
    const [proposal] = await client.listPartyToParticipant({
      party: ALICE,
      synchronizerId: SYNC,
      proposals: true,
    });
    expect(proposal?.serial).toBe(2);
    expect(proposal?.proposal).toBe(true);
    // The re-serialized bytes hash to the node's hash (same field order as the bytes the store holds).
    expect(hex(topologyTransactionHash(proposal?.transaction ?? new Uint8Array()))).toBe(
      proposal?.transactionHash,
    );

    await client.authorize({ transactionHash: proposal?.transactionHash ?? '', synchronizerId: SYNC });
    expect(store.authorizations.at(-1)).toEqual({
      hashHex: proposal?.transactionHash,
      opts: { participantId: PARTICIPANT, synchronizerId: SYNC },
    });
    const [active] = await client.listPartyToParticipant({ party: ALICE, synchronizerId: SYNC });
    expect(active?.serial).toBe(2);
    expect(
      await client.listPartyToParticipant({ party: ALICE, synchronizerId: SYNC, proposals: true }),
    ).toEqual([]);
  });

  test('the store receives named v30 enums, plain bytes, force flag names, the participant and the logical synchronizer', async () => {
    const bob = `bob::${NS}`;
    const tx = p2p(bob, 1);
    await client.addTransactions(
      [
        {
          transaction: tx,
          signatures: [
            sig,
            {
              signedBy: FP,
              format: 'SIGNATURE_FORMAT_DER',
              signature: SIG,
              signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384',
            },
          ],
        },
      ],
      { synchronizerId: `${SYNC}::35-0`, forceChanges: ['FORCE_FLAG_ALLOW_UNVALIDATED_SIGNING_KEYS'] },
    );
    const [txs, opts] = store.adds.at(-1) as AddArgs;
    expect(opts).toEqual({
      synchronizerId: SYNC,
      participantId: PARTICIPANT,
      forceChanges: ['FORCE_FLAG_ALLOW_UNVALIDATED_SIGNING_KEYS'],
    });
    expect(txs).toHaveLength(1);
    const [t] = txs;
    expect(t?.transaction).toEqual(tx);
    expect(Buffer.isBuffer(t?.transaction)).toBe(false);
    expect(t?.proposal).toBe(false);
    expect(t?.multiTransactionSignatures).toEqual([]);
    expect(t?.signatures).toEqual<TopologySignature[]>([
      {
        signedBy: FP,
        format: 'SIGNATURE_FORMAT_CONCAT',
        signature: SIG,
        signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
      },
      {
        signedBy: FP,
        format: 'SIGNATURE_FORMAT_DER',
        signature: SIG,
        signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384',
      },
    ]);
  });

  test('filter_party is a prefix match on the node: the client keeps the exact party only', async () => {
    const carol = `carol::${NS}`;
    // Ids that extend carol's as a string (the stand-in store takes any string as a party).
    for (const party of [`${carol}0`, carol, `${carol}ff`]) {
      await client.addTransactions([{ transaction: p2p(party, 1), signatures: [sig] }], {
        synchronizerId: SYNC,
      });
    }
    // The server answers all three (what a real node does for the prefix)…
    expect(store.listPartyToParticipant({ filterParty: carol, proposals: false })).toHaveLength(3);
    // …the client returns one.
    const states = await client.listPartyToParticipant({ party: carol, synchronizerId: SYNC });
    expect(states.map((s) => s.partyId)).toEqual([carol]);
    // Another synchronizer's store holds none of them.
    expect(await client.listPartyToParticipant({ party: carol, synchronizerId: `other::${NS}` })).toEqual([]);
  });
});

describe('failures', () => {
  test('a serial mismatch from the store: its category status, Canton code, no signature in the message', async () => {
    const dave = `dave::${NS}`;
    await client.addTransactions([{ transaction: p2p(dave, 1), signatures: [sig] }], {
      synchronizerId: SYNC,
    });
    const e = await rejection(
      client.addTransactions([{ transaction: p2p(dave, 3), signatures: [sig] }], { synchronizerId: SYNC }),
    );
    // TopologyManagerError.SerialMismatch is InvalidGivenCurrentSystemStateOther (9): FAILED_PRECONDITION.
    expect(e.code).toBe('FAILED_PRECONDITION');
    expect(e.cantonCode).toBe('TOPOLOGY_SERIAL_MISMATCH');
    expect(e.message).toContain('The provided serial 3 did not match the expected serial 2.');
    expect(e.message).not.toContain(hex(SIG));
    expect(e.message).not.toContain(Buffer.from(SIG).toString('base64'));
  });

  test('authorizing an unknown hash: NOT_FOUND, TOPOLOGY_TRANSACTION_NOT_FOUND', async () => {
    const e = await rejection(
      client.authorize({ transactionHash: `1220${'00'.repeat(32)}`, synchronizerId: SYNC }),
    );
    expect(e.code).toBe('NOT_FOUND');
    expect(e.cantonCode).toBe('TOPOLOGY_TRANSACTION_NOT_FOUND');
  });

  test('a legacy-shape topology error (category -1) is INVALID_ARGUMENT with its code', async () => {
    store.fail = new SandboxError(
      'TOPOLOGY_UNAUTHORIZED_TRANSACTION',
      -1,
      `Topology transaction is missing authorizations by namespaces=Set() and keys=Set(${FP})`,
    );
    const e = await rejection(
      client.addTransactions([{ transaction: p2p(`erin::${NS}`, 1), signatures: [sig] }], {
        synchronizerId: SYNC,
      }),
    );
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.cantonCode).toBe('TOPOLOGY_UNAUTHORIZED_TRANSACTION');
  });

  test('anything else the store throws is INTERNAL, without its message', async () => {
    store.fail = new Error(`boom ${hex(SIG)}`);
    const e = await rejection(
      client.addTransactions([{ transaction: p2p(`fay::${NS}`, 1), signatures: [sig] }], {
        synchronizerId: SYNC,
      }),
    );
    expect(e.code).toBe('INTERNAL');
    expect(e.message).not.toContain('boom');
  });

  test('a method outside the subset answers UNIMPLEMENTED', async () => {
    const { TopologyManagerReadServiceClient } = await import('@quill/canton/admin/wire');
    const { credentials } = await import('@grpc/grpc-js');
    const raw = new TopologyManagerReadServiceClient(server.url, credentials.createInsecure());
    extra.push(raw);
    const code = await new Promise<number | undefined>((resolve) =>
      raw.listAvailableStores({}, (err) => resolve(err?.code)),
    );
    expect(code).toBe(12); // UNIMPLEMENTED
  });
});

describe('token', () => {
  test('refused without or with a wrong bearer token (UNAUTHENTICATED), served with the right one', async () => {
    const guarded = await startAdminApi(store, { participantId: PARTICIPANT, token: 'op-secret' });
    extra.push(guarded);
    const anonymous = new TopologyAdminClient({ url: guarded.url });
    const wrong = new TopologyAdminClient({ url: guarded.url, token: 'nope' });
    const right = new TopologyAdminClient({ url: `grpc://${guarded.url}`, token: 'op-secret' });
    extra.push(anonymous, wrong, right);
    for (const c of [anonymous, wrong]) {
      const e = await rejection(c.listPartyToParticipant({ party: ALICE, synchronizerId: SYNC }));
      expect(e.code).toBe('UNAUTHENTICATED');
      expect(e.message).not.toContain('op-secret');
    }
    const e = await rejection(
      wrong.authorize({ transactionHash: `1220${'00'.repeat(32)}`, synchronizerId: SYNC }),
    );
    expect(e.code).toBe('UNAUTHENTICATED');
    expect(await right.listPartyToParticipant({ party: ALICE, synchronizerId: SYNC })).toHaveLength(1);
  });
});
