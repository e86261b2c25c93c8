// A small real HTTP participant for onboarding tests: generate-topology, allocate, connected-synchronizers.
// It computes fingerprints and the multi-hash itself and checks the multi-hash signature with node:crypto.
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const SYNCHRONIZER = `global-domain::1220${'ab'.repeat(32)}`;

function purposeHash(purpose: number, bytes: Buffer): Buffer {
  const prefix = Buffer.alloc(4);
  prefix.writeInt32BE(purpose);
  return Buffer.concat([
    Buffer.from([0x12, 0x20]),
    createHash('sha256').update(prefix).update(bytes).digest(),
  ]);
}

/** Canton's combined hash of topology transactions, written here from the reference, independently. */
export function multiHashOf(transactions: Buffer[]): Buffer {
  const hashes = [...new Set(transactions.map((t) => purposeHash(11, t).toString('hex')))].sort();
  const parts = [Buffer.alloc(4)];
  parts[0]!.writeInt32BE(hashes.length);
  for (const h of hashes) {
    const len = Buffer.alloc(4);
    len.writeInt32BE(34);
    parts.push(len, Buffer.from(h, 'hex'));
  }
  return purposeHash(55, Buffer.concat(parts));
}

export function fingerprintOfSpki(spki: Buffer, keySpec: string): string {
  const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  const bytes =
    keySpec === 'SIGNING_KEY_SPEC_EC_CURVE25519'
      ? Buffer.from(key.export({ format: 'jwk' }).x as string, 'base64url')
      : key.export({ type: 'spki', format: 'der' });
  return `1220${createHash('sha256')
    .update(Buffer.from([0, 0, 0, 12]))
    .update(bytes)
    .digest('hex')}`;
}

interface Pending {
  spki: Buffer;
  partyId: string;
  transactions: string[];
  multiHash: Buffer;
}

export interface FakeParticipant {
  url: string;
  calls: string[];
  allocated: Map<string, string>;
  /** Tamper with the next generate-topology answer. */
  tamper?: 'partyId' | 'fingerprint' | 'multiHash';
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export async function startFakeParticipant(): Promise<FakeParticipant> {
  const pending = new Map<string, Pending>();
  const state: FakeParticipant = { url: '', calls: [], allocated: new Map(), close: async () => {} };
  const error = (code: string, cause: string, errorCategory = 8) => ({
    code,
    cause,
    context: {},
    errorCategory,
  });
  const server: Server = createServer((req, res) => {
    const reply = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    state.calls.push(`${req.method} ${req.url}`);
    (async () => {
      if (req.method === 'GET' && req.url === '/v2/state/connected-synchronizers') {
        return reply(200, {
          connectedSynchronizers: [{ synchronizerAlias: 'global', synchronizerId: SYNCHRONIZER }],
        });
      }
      if (req.method === 'POST' && req.url === '/v2/parties/external/generate-topology') {
        const b = (await body(req)) as {
          partyHint: string;
          synchronizer: string;
          publicKey: Record<string, string>;
        };
        if (b.publicKey.format !== 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO') {
          return reply(400, error('INVALID_ARGUMENT', 'format'));
        }
        const spki = Buffer.from(b.publicKey.keyData!, 'base64');
        let fp = fingerprintOfSpki(spki, b.publicKey.keySpec!);
        const transactions = [randomBytes(80), randomBytes(120)];
        let multiHash = multiHashOf(transactions);
        let partyId = `${b.partyHint}::${fp}`;
        pending.set(partyId, {
          spki,
          partyId,
          transactions: transactions.map((t) => t.toString('base64')),
          multiHash,
        });
        if (state.tamper === 'partyId') partyId = `${b.partyHint}x::${fp}`;
        if (state.tamper === 'fingerprint') fp = `1220${'0'.repeat(64)}`;
        if (state.tamper === 'multiHash') multiHash = multiHashOf([randomBytes(10)]);
        state.tamper = undefined;
        return reply(200, {
          partyId,
          publicKeyFingerprint: fp,
          topologyTransactions: transactions.map((t) => t.toString('base64')),
          multiHash: multiHash.toString('base64'),
        });
      }
      if (req.method === 'POST' && req.url === '/v2/parties/external/allocate') {
        const b = (await body(req)) as {
          synchronizer: string;
          onboardingTransactions: { transaction: string }[];
          multiHashSignatures: Record<string, string>[];
        };
        const txs = b.onboardingTransactions.map((t) => t.transaction);
        const p = [...pending.values()].find((x) => JSON.stringify(x.transactions) === JSON.stringify(txs));
        if (!p) return reply(400, error('INVALID_ARGUMENT', 'unknown topology transactions'));
        if (state.allocated.has(p.partyId))
          return reply(409, error('EXTERNAL_PARTY_ALREADY_EXISTS', p.partyId, 10));
        const sig = b.multiHashSignatures[0];
        const key = createPublicKey({ key: p.spki, format: 'der', type: 'spki' });
        const digest = {
          SIGNING_ALGORITHM_SPEC_ED25519: null,
          SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256: 'sha256',
          SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384: 'sha384',
        }[sig?.signingAlgorithmSpec as string];
        const ok =
          sig !== undefined &&
          digest !== undefined &&
          sig.signedBy === p.partyId.split('::')[1] &&
          verify(digest, p.multiHash, { key, dsaEncoding: 'der' }, Buffer.from(sig.signature!, 'base64'));
        if (!ok) return reply(400, error('TOPOLOGY_INVALID_TX_SIGNATURE', 'bad multi-hash signature'));
        state.allocated.set(p.partyId, b.synchronizer);
        return reply(200, { partyId: p.partyId });
      }
      reply(404, error('NOT_FOUND', String(req.url)));
    })().catch((e) => reply(500, error('INTERNAL', String(e))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
