// TopologyAdminClient against a bare gRPC server on loopback (the generated service definitions, no sandbox):
// the request messages it sends, how it reads answers and failures, deadlines, refused connections, and the
// input it refuses before any call.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { AdminApiError, TopologyAdminClient } from '@quill/canton/admin';
import {
  type AddTransactionsRequest,
  type AuthorizeRequest,
  decodeVersionedTopologyTransaction,
  Enums_TopologyChangeOp,
  encodeVersionedTopologyTransaction,
  type ITopologyManagerReadService,
  type ITopologyManagerWriteService,
  type ListPartyToParticipantRequest,
  type ListPartyToParticipantResponse,
  Timestamp,
  topologyManagerReadServiceDefinition,
  topologyManagerWriteServiceDefinition,
} from '@quill/canton/admin/wire';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';

const NS = `1220${'ab'.repeat(32)}`;
const ALICE = `alice::${NS}`;
const SYNC = `global::${NS}`;
const PHYSICAL_SYNC = `${SYNC}::35-0`;
const HASH = `1220${'cd'.repeat(32)}`;
const FP = `1220${'ef'.repeat(32)}`;
const SIG = new Uint8Array(64).fill(7);

/** What the fake node answers next, and what it received. */
interface Fake {
  calls: { method: string; request: unknown; metadata: grpc.Metadata }[];
  answer: (method: string) => { error?: Partial<grpc.StatusObject>; value?: unknown; hang?: boolean };
}

const fake: Fake = { calls: [], answer: () => ({ value: {} }) };
let server: grpc.Server;
let url: string;
const clients: TopologyAdminClient[] = [];

function handler(method: string): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    fake.calls.push({ method, request: call.request, metadata: call.metadata });
    const a = fake.answer(method);
    if (a.hang) return; // never answers: the client's deadline must end the call
    if (a.error) callback(a.error);
    else callback(null, a.value);
  };
}

function client(
  opts: Partial<ConstructorParameters<typeof TopologyAdminClient>[0]> = {},
): TopologyAdminClient {
  const c = new TopologyAdminClient({ url, ...opts });
  clients.push(c);
  return c;
}

async function rejection(p: Promise<unknown>): Promise<AdminApiError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AdminApiError);
  return e as AdminApiError;
}

function p2pBytes(party: string, serial: number): Uint8Array {
  return encodeVersionedTopologyTransaction({
    operation: Enums_TopologyChangeOp.ADD_REPLACE,
    serial,
    mapping: {
      mapping: {
        oneofKind: 'partyToParticipant',
        partyToParticipant: {
          party,
          threshold: 1,
          participants: [{ participantUid: `p1::${NS}`, permission: 2 }],
        },
      },
    },
  });
}

beforeAll(async () => {
  server = new grpc.Server();
  server.addService(topologyManagerReadServiceDefinition, {
    listPartyToParticipant: handler('ListPartyToParticipant'),
  } as unknown as ITopologyManagerReadService);
  server.addService(topologyManagerWriteServiceDefinition, {
    addTransactions: handler('AddTransactions'),
    authorize: handler('Authorize'),
  } as unknown as ITopologyManagerWriteService);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
  url = `127.0.0.1:${port}`;
});

afterEach(() => {
  fake.calls = [];
  fake.answer = () => ({ value: {} });
  for (const c of clients.splice(0)) c.close();
});

afterAll(() => {
  server.forceShutdown();
});

describe('requests', () => {
  test('ListPartyToParticipant: synchronizer store, head state, the party as filter, the token as metadata', async () => {
    fake.answer = () => ({ value: { results: [] } });
    await client({ token: 'tok' }).listPartyToParticipant({
      party: ALICE,
      synchronizerId: SYNC,
      proposals: true,
    });
    const [call] = fake.calls;
    const req = call?.request as ListPartyToParticipantRequest;
    expect(req.filterParty).toBe(ALICE);
    expect(req.filterParticipant).toBe('');
    expect(req.baseQuery?.proposals).toBe(true);
    expect(req.baseQuery?.operation).toBe(0);
    expect(req.baseQuery?.timeQuery.oneofKind).toBe('headState');
    expect(req.baseQuery?.store?.store).toEqual({
      oneofKind: 'synchronizer',
      synchronizer: { kind: { oneofKind: 'id', id: SYNC } },
    });
    expect(call?.metadata.get('authorization')).toEqual(['Bearer tok']);
  });

  test('AddTransactions: v30 signature enums, force flags, wait as a Duration, a physical id as physical_id', async () => {
    const tx = p2pBytes(ALICE, 2);
    await client().addTransactions(
      [
        {
          transaction: tx,
          signatures: [
            {
              signedBy: FP,
              format: 'SIGNATURE_FORMAT_CONCAT',
              signature: SIG,
              signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
            },
            {
              signedBy: FP.toUpperCase(),
              format: 'SIGNATURE_FORMAT_DER',
              signature: SIG,
              signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
            },
          ],
          proposal: true,
        },
      ],
      {
        synchronizerId: PHYSICAL_SYNC,
        waitToBecomeEffectiveMs: 1500,
        forceChanges: ['FORCE_FLAG_ALLOW_UNVALIDATED_SIGNING_KEYS'],
      },
    );
    const req = fake.calls[0]?.request as AddTransactionsRequest;
    expect(req.store?.store).toEqual({
      oneofKind: 'synchronizer',
      synchronizer: { kind: { oneofKind: 'physicalId', physicalId: PHYSICAL_SYNC } },
    });
    expect(req.forceChanges).toEqual([7]);
    expect(req.waitToBecomeEffective).toEqual({ seconds: 1n, nanos: 500_000_000 });
    expect(req.transactions).toHaveLength(1);
    const [signed] = req.transactions;
    expect(new Uint8Array(signed?.transaction ?? [])).toEqual(tx);
    expect(signed?.proposal).toBe(true);
    expect(signed?.multiTransactionSignatures).toEqual([]);
    // crypto.v30 numbers: CONCAT 3, DER 2; ED25519 1, EC_DSA_SHA_256 2.
    expect(signed?.signatures.map((s) => [s.format, s.signingAlgorithmSpec, s.signedBy])).toEqual([
      [3, 1, FP],
      [2, 2, FP],
    ]);
    expect(new Uint8Array(signed?.signatures[0]?.signature ?? [])).toEqual(SIG);
  });

  test('Authorize: the hash as lowercase hex, must_fully_authorize false by default', async () => {
    await client().authorize({ transactionHash: HASH.toUpperCase(), synchronizerId: SYNC });
    await client().authorize({ transactionHash: HASH, synchronizerId: SYNC, mustFullyAuthorize: true });
    const [a, b] = fake.calls.map((c) => c.request as AuthorizeRequest);
    expect(a?.type).toEqual({ oneofKind: 'transactionHash', transactionHash: HASH });
    expect(a?.mustFullyAuthorize).toBe(false);
    expect(b?.mustFullyAuthorize).toBe(true);
    expect(a?.store?.store.oneofKind).toBe('synchronizer');
  });
});

describe('answers', () => {
  test('keeps only the exact party of a prefix match; re-serializes the mapping with the node context', async () => {
    const result = (party: string, serial: number) => ({
      context: {
        serial,
        transactionHash: Buffer.from(HASH, 'hex'),
        operation: Enums_TopologyChangeOp.ADD_REPLACE,
        validFrom: Timestamp.fromDate(new Date('2026-06-01T10:00:00.123Z')),
        signedByFingerprints: [FP],
      },
      item: decodeP2p(p2pBytes(party, serial)),
    });
    fake.answer = () => ({
      value: {
        results: [result(`alice2::${NS}`, 1), result(ALICE, 3), result(`alice::${NS}00`, 1)],
      } satisfies Partial<ListPartyToParticipantResponse>,
    });
    const states = await client().listPartyToParticipant({ party: ALICE, synchronizerId: SYNC });
    expect(states).toEqual([
      {
        serial: 3,
        transaction: p2pBytes(ALICE, 3),
        transactionHash: HASH,
        proposal: false,
        validFrom: '2026-06-01T10:00:00.123Z',
        partyId: ALICE,
      },
    ]);
  });

  test('a Canton error keeps its status name and code; long blobs in the message are redacted', async () => {
    const blob = Buffer.alloc(64, 9).toString('base64');
    fake.answer = () => ({
      error: {
        code: grpc.status.FAILED_PRECONDITION,
        details: `TOPOLOGY_SERIAL_MISMATCH(9,0a1b2c3d): The provided serial 3 did not match the expected serial 2. key=${blob}`,
      },
    });
    const e = await rejection(client().authorize({ transactionHash: HASH, synchronizerId: SYNC }));
    expect(e.code).toBe('FAILED_PRECONDITION');
    expect(e.cantonCode).toBe('TOPOLOGY_SERIAL_MISMATCH');
    expect(e.message).toContain('expected serial 2');
    expect(e.message).not.toContain(blob);
  });

  test('a status without Canton shape has no cantonCode', async () => {
    fake.answer = () => ({ error: { code: grpc.status.PERMISSION_DENIED, details: 'no' } });
    const e = await rejection(client().authorize({ transactionHash: HASH, synchronizerId: SYNC }));
    expect(e.code).toBe('PERMISSION_DENIED');
    expect(e.cantonCode).toBeUndefined();
  });

  test('a node that never answers: DEADLINE_EXCEEDED within the deadline', async () => {
    fake.answer = () => ({ hang: true });
    const started = Date.now();
    const e = await rejection(
      client({ deadlineMs: 300 }).listPartyToParticipant({ party: ALICE, synchronizerId: SYNC }),
    );
    expect(e.code).toBe('DEADLINE_EXCEEDED');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('nothing listening: UNAVAILABLE', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const c = new TopologyAdminClient({ url: `grpc://127.0.0.1:${port}`, deadlineMs: 5000 });
    clients.push(c);
    const e = await rejection(c.authorize({ transactionHash: HASH, synchronizerId: SYNC }));
    expect(e.code).toBe('UNAVAILABLE');
  });
});

describe('transport', () => {
  test('TLS with the given CA (a self-signed fixture for 127.0.0.1); a plaintext client cannot talk to it', async () => {
    const dir = new URL('./tls/', import.meta.url);
    const cert = readFileSync(new URL('server.crt', dir));
    const tls = new grpc.Server();
    tls.addService(topologyManagerWriteServiceDefinition, {
      authorize: handler('Authorize'),
    } as unknown as ITopologyManagerWriteService);
    const port = await new Promise<number>((resolve, reject) =>
      tls.bindAsync(
        '127.0.0.1:0',
        grpc.ServerCredentials.createSsl(null, [
          { private_key: readFileSync(new URL('server.key', dir)), cert_chain: cert },
        ]),
        (e, p) => (e ? reject(e) : resolve(p)),
      ),
    );
    try {
      await client({ url: `127.0.0.1:${port}`, tlsCaPem: new Uint8Array(cert) }).authorize({
        transactionHash: HASH,
        synchronizerId: SYNC,
      });
      expect(fake.calls.map((c) => c.method)).toEqual(['Authorize']);
      const e = await rejection(
        client({ url: `127.0.0.1:${port}`, deadlineMs: 2000 }).authorize({
          transactionHash: HASH,
          synchronizerId: SYNC,
        }),
      );
      expect(e.code).toBe('UNAVAILABLE');
    } finally {
      tls.forceShutdown();
    }
  });

  test('a closed client refuses calls with an AdminApiError', async () => {
    const c = client();
    c.close();
    const e = await rejection(c.authorize({ transactionHash: HASH, synchronizerId: SYNC }));
    expect(e.code).toBe('FAILED_PRECONDITION');
  });
});

describe('input refused before any call', () => {
  const sig = {
    signedBy: FP,
    format: 'SIGNATURE_FORMAT_CONCAT',
    signature: SIG,
    signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
  } as const;
  const cases: [string, (c: TopologyAdminClient) => Promise<unknown>][] = [
    ['empty party', (c) => c.listPartyToParticipant({ party: '', synchronizerId: SYNC })],
    ['party without namespace', (c) => c.listPartyToParticipant({ party: 'alice', synchronizerId: SYNC })],
    ['empty synchronizer', (c) => c.listPartyToParticipant({ party: ALICE, synchronizerId: '' })],
    ['non-hex hash', (c) => c.authorize({ transactionHash: 'zz12', synchronizerId: SYNC })],
    ['odd-length hash', (c) => c.authorize({ transactionHash: 'abc', synchronizerId: SYNC })],
    ['empty hash', (c) => c.authorize({ transactionHash: '', synchronizerId: SYNC })],
    ['no transactions', (c) => c.addTransactions([], { synchronizerId: SYNC })],
    [
      'garbage transaction bytes',
      (c) =>
        c.addTransactions([{ transaction: new Uint8Array([1, 2, 3]), signatures: [sig] }], {
          synchronizerId: SYNC,
        }),
    ],
    [
      'no signatures',
      (c) =>
        c.addTransactions([{ transaction: p2pBytes(ALICE, 2), signatures: [] }], { synchronizerId: SYNC }),
    ],
    [
      'unknown signature format',
      (c) =>
        c.addTransactions(
          [
            {
              transaction: p2pBytes(ALICE, 2),
              signatures: [{ ...sig, format: 'SIGNATURE_FORMAT_SYMBOLIC' as 'SIGNATURE_FORMAT_RAW' }],
            },
          ],
          { synchronizerId: SYNC },
        ),
    ],
    [
      'empty signature',
      (c) =>
        c.addTransactions(
          [{ transaction: p2pBytes(ALICE, 2), signatures: [{ ...sig, signature: new Uint8Array() }] }],
          {
            synchronizerId: SYNC,
          },
        ),
    ],
    [
      'unknown force flag',
      (c) =>
        c.addTransactions([{ transaction: p2pBytes(ALICE, 2), signatures: [sig] }], {
          synchronizerId: SYNC,
          forceChanges: ['FORCE_FLAG_NOPE'],
        }),
    ],
    [
      'negative wait',
      (c) =>
        c.addTransactions([{ transaction: p2pBytes(ALICE, 2), signatures: [sig] }], {
          synchronizerId: SYNC,
          waitToBecomeEffectiveMs: -1,
        }),
    ],
  ];
  test.each(cases)('%s → INVALID_ARGUMENT', async (_name, run) => {
    const e = await rejection(run(client()));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(fake.calls).toHaveLength(0);
    // Never the signature bytes, in any encoding.
    expect(e.message).not.toContain(Buffer.from(SIG).toString('hex'));
    expect(e.message).not.toContain(Buffer.from(SIG).toString('base64'));
  });

  test.each(['', 'localhost', 'http://127.0.0.1:1', '127.0.0.1:1/x', 'grpc://:1'])(
    'url %j → INVALID_ARGUMENT',
    (u) => {
      expect(() => new TopologyAdminClient({ url: u })).toThrow(AdminApiError);
    },
  );

  test('a bad deadline or token → INVALID_ARGUMENT', () => {
    expect(() => new TopologyAdminClient({ url, deadlineMs: 0 })).toThrow(/deadlineMs/);
    expect(() => new TopologyAdminClient({ url, token: 'a\nb' })).toThrow(/token/);
  });
});

function decodeP2p(bytes: Uint8Array) {
  const m = decodeVersionedTopologyTransaction(bytes).mapping?.mapping;
  if (m?.oneofKind !== 'partyToParticipant') throw new Error('not a P2P');
  return m.partyToParticipant;
}
