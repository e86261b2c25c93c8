// A wallet API on a real HTTP port with a real Redis, a real key store and real prepared transactions.
import { randomBytes, randomUUID } from 'node:crypto';
import { encodePreparedTransactionBase64, hashPreparedTransaction } from '@quill/canton/transaction';
import { buildPreparedTransaction, damlValue } from '@quill/sandbox/build';
import { inject } from 'vitest';
import { issueToken } from '../../src/auth/index.ts';
import { loadConfig } from '../../src/config/index.ts';
import { PartyError, type PartyRegistry, signingSetOf } from '../../src/parties/index.ts';
import type { AssetRecognizers } from '../../src/policy/index.ts';
import { partyView } from '../../src/server/adapters.ts';
import { startWallet } from '../../src/server/wallet.ts';
import { type KeyBackend, Keyring, KeyStore, verifyingSigner } from '../../src/signing/index.ts';
import type { LedgerPort } from '../../src/submissions/index.ts';
import { tempDir } from './tmp.ts';

export const SECRET = 'test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
export const SYNC = 'global-synchronizer::1220aaaa';

/** A ledger that is never reached in API-only tests. */
export const unreachableLedger: LedgerPort = {
  execute: () => Promise.reject(new Error('no ledger in this test')),
  prepare: () => Promise.reject(new Error('no ledger in this test')),
  ledgerEnd: () => Promise.resolve(0),
  transactionAt: () => Promise.resolve(undefined),
  transactions: async function* () {},
};

/** `recognizers`: holdings of further registries the wallet values, beside the built-in Amulet ones. */
export async function apiHarness(
  env: Record<string, string> = {},
  opts: {
    recognizers?: AssetRecognizers;
    moreBackends?: (dir: string) => KeyBackend[];
    /** Parties written here (signing sets) are looked up before the harness's own single-key ones. */
    registry?: PartyRegistry;
  } = {},
) {
  const dir = tempDir('quill-api-');
  const keys = new KeyStore({ dir, passphrase: 'test passphrase', scrypt: { N: 1024 } });
  const keyring = new Keyring([keys, ...(opts.moreBackends?.(dir) ?? [])]);
  const parties = new Map<string, string>();
  const config = loadConfig({
    PORT: '0', // any free port
    HOST: '127.0.0.1',
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: `api-${randomBytes(4).toString('hex')}`,
    AUTH_JWT_SECRET: SECRET,
    BATCH_MAX: '5',
    ...env,
  });
  const logs: Record<string, unknown>[] = [];
  const view = (partyId: string, keyFingerprint: string) =>
    partyView({ partyId, keyFingerprint, synchronizerId: SYNC, createdAt: new Date(0).toISOString() });
  const wallet = await startWallet({
    config,
    role: 'api',
    log: (level, msg, fields) => logs.push({ level, msg, ...fields }),
    ledger: unreachableLedger,
    ...(opts.recognizers ? { recognizers: opts.recognizers } : {}),
    auth: (await import('../../src/auth/index.ts')).createVerifier(config.auth),
    keys: keyring,
    signer: verifyingSigner(keyring),
    parties: {
      keyOf: async (p) => (await opts.registry?.get(p))?.keyFingerprint ?? parties.get(p),
      ...(opts.registry
        ? {
            signingSet: async (p: string) => {
              const r = await opts.registry?.get(p);
              return r ? signingSetOf(r) : undefined;
            },
          }
        : {}),
      // Registry-only onboarding: no ledger here, so the party is recorded as if the ledger had allocated it.
      list: async () => [...parties].map(([partyId, keyFingerprint]) => view(partyId, keyFingerprint)),
      get: async (partyId) => {
        const fp = parties.get(partyId);
        return fp ? view(partyId, fp) : undefined;
      },
      onboard: async ({ keyFingerprint, partyHint }) => {
        if (!keyFingerprint)
          throw new PartyError('BAD_INPUT', 'this harness onboards single-key parties only');
        const partyId = `${partyHint}::${keyFingerprint}`;
        parties.set(partyId, keyFingerprint);
        return view(partyId, keyFingerprint);
      },
      prepare: async () => {
        throw new PartyError('BAD_INPUT', 'this harness has no ledger to prepare on');
      },
      changeKeys: async () => {
        throw new PartyError('ADMIN_API_UNAVAILABLE', 'this harness has no admin API');
      },
    },
  });
  const token = (role: 'read' | 'submit' | 'approve' | 'admin', party?: string) =>
    issueToken({ secret: SECRET, role, ttlSeconds: 600, subject: `t-${role}`, ...(party ? { party } : {}) });
  async function party(hint: string, algorithm: 'ed25519' | 'p256' = 'ed25519') {
    const key = await keys.generate(algorithm);
    const id = `${hint}::${key.fingerprint}`;
    parties.set(id, key.fingerprint);
    return { id, fingerprint: key.fingerprint };
  }
  async function call(
    method: string,
    path: string,
    opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) {
    const res = await fetch(`${wallet.url}${path}`, {
      method,
      headers: {
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...opts.headers,
      },
      ...(opts.body !== undefined
        ? { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) }
        : {}),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return {
      status: res.status,
      json: json as Record<string, unknown> & { error?: { code: string; message: string } },
      text,
      headers: res.headers,
    };
  }
  const close = async () => {
    await wallet.close();
    await keyring.close();
  };
  return { wallet, keys, dir, parties, token, party, call, config, logs, close };
}

/** A small valid prepared transaction (one Create) acting as `party`. */
export function prepared(
  party: string,
  opts: {
    scheme?: 'HASHING_SCHEME_VERSION_V2' | 'HASHING_SCHEME_VERSION_V3';
    maxRecordTime?: Date;
    preparationTime?: Date;
    commandId?: string;
    synchronizerId?: string;
    /** Pads the create argument with a list of this many units (about 5.4 base64 characters each). */
    units?: number;
  } = {},
) {
  const scheme = opts.scheme ?? 'HASHING_SCHEME_VERSION_V2';
  const tx = buildPreparedTransaction({
    roots: [
      {
        kind: 'create',
        contractId: `00${randomBytes(32).toString('hex')}`,
        packageName: 'quill-test',
        templateId: `${'ab'.repeat(32)}:Test:Thing`,
        argument: damlValue.record({
          owner: damlValue.party(party),
          ...(opts.units
            ? { items: damlValue.list(Array.from({ length: opts.units }, damlValue.unit)) }
            : {}),
        }),
        signatories: [party],
      },
    ],
    actAs: [party],
    commandId: opts.commandId ?? randomUUID(),
    synchronizerId: opts.synchronizerId ?? SYNC,
    preparationTime: opts.preparationTime ?? new Date(),
    ...(opts.maxRecordTime ? { maxRecordTime: opts.maxRecordTime } : {}),
  });
  const hash = hashPreparedTransaction(tx, scheme);
  return {
    body: { preparedTransaction: encodePreparedTransactionBase64(tx), hashingSchemeVersion: scheme },
    hashHex: Buffer.from(hash).toString('hex'),
    hashB64: Buffer.from(hash).toString('base64'),
  };
}

/** A demo-coin transfer as the sandbox prepares it: the party's 10000.0 holding consumed, `amount` created for the
 * receiver and the change back to the party. The policy reads what leaves the holdings, not the choice argument. */
export function coinTransfer(party: string, receiver: string, amount: string) {
  const scheme = 'HASHING_SCHEME_VERSION_V2' as const;
  const operator = 'operator::1220op';
  const holding = `${'cd'.repeat(32)}:Quill.Coin:Holding`;
  const input = `00${randomBytes(32).toString('hex')}`;
  const coin = (owner: string, value: string) =>
    damlValue.record({
      operator: damlValue.party(operator),
      owner: damlValue.party(owner),
      amount: damlValue.numeric(value),
    });
  const created = (owner: string, value: string) => ({
    kind: 'create' as const,
    contractId: `00${randomBytes(32).toString('hex')}`,
    packageName: 'quill-coin',
    templateId: holding,
    argument: coin(owner, value),
    signatories: [operator],
    stakeholders: [operator, owner],
  });
  const change = (10000 - Number(amount)).toFixed(1);
  const tx = buildPreparedTransaction({
    roots: [
      {
        kind: 'exercise',
        contractId: input,
        packageName: 'quill-coin',
        templateId: holding,
        signatories: [operator, party],
        choice: 'Holding_Transfer',
        choiceArgument: damlValue.record({
          receiver: damlValue.party(receiver),
          amount: damlValue.numeric(amount),
        }),
        consuming: true,
        actingParties: [party],
        children: [created(receiver, amount), created(party, change)],
      },
    ],
    inputContracts: [
      {
        contract: {
          contractId: input,
          packageName: 'quill-coin',
          templateId: holding,
          argument: coin(party, '10000.0'),
          signatories: [operator, party],
        },
        createdAt: new Date(),
      },
    ],
    actAs: [party],
    commandId: randomUUID(),
    synchronizerId: SYNC,
    preparationTime: new Date(),
  });
  return {
    body: { preparedTransaction: encodePreparedTransactionBase64(tx), hashingSchemeVersion: scheme },
    hashHex: Buffer.from(hashPreparedTransaction(tx, scheme)).toString('hex'),
  };
}
