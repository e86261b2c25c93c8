// A whole wallet (API + worker, real Redis, real key store) on the embedded sandbox over real HTTP.
import { randomBytes, randomUUID } from 'node:crypto';
import { LedgerClient } from '@quill/canton/ledger';
import {
  COIN_MODULE,
  COIN_PACKAGE,
  type FaultConfig,
  SANDBOX_RECOGNIZERS,
  type Sandbox,
  startSandbox,
} from '@quill/sandbox';
import { createVerifier, issueToken } from '../../src/auth/index.ts';
import { type Config, loadConfig } from '../../src/config/index.ts';
import type { Log } from '../../src/log.ts';
import { PartyRegistry } from '../../src/parties/index.ts';
import { partyServices } from '../../src/server/adapters.ts';
import { type Role, startWallet } from '../../src/server/wallet.ts';
import { type KeyBackend, Keyring, KeyStore, verifyingSigner } from '../../src/signing/index.ts';
import { ledgerPort } from '../../src/submissions/ledger.ts';
import { tempDir } from './tmp.ts';

export const SECRET = 'e2e-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
/** The ledger user the test wallets execute as and prepare with: the sandbox runs without auth, which refuses an empty one. */
export const LEDGER_USER = 'e2e';
export type Scheme = 'HASHING_SCHEME_VERSION_V2' | 'HASHING_SCHEME_VERSION_V3';
export const coinTemplate = (entity: string) => `#${COIN_PACKAGE}:${COIN_MODULE}:${entity}`;

export async function startLedger(faults?: FaultConfig): Promise<Sandbox> {
  return startSandbox({
    port: 0,
    scanPort: 0,
    host: '127.0.0.1',
    auth: 'none',
    ...(faults ? { faults } : {}),
  });
}

export function walletConfig(redisUrl: string, env: Record<string, string> = {}): Config {
  const config = loadConfig({
    PORT: '0', // any free port
    HOST: '127.0.0.1',
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `e2e-${randomBytes(4).toString('hex')}`,
    AUTH_JWT_SECRET: SECRET,
    RETRY_BASE_DELAY_MS: '20',
    RETRY_MAX_DELAY_MS: '500',
    LEDGER_USER_ID: LEDGER_USER,
    ...env,
  });
  return config;
}

export async function startFullWallet(
  sandbox: Sandbox,
  config: Config,
  role: Role = 'all',
  keysDir?: string,
  /** More key backends beside the file store (the PKCS#11 token in the HSM tests). */
  moreBackends: (dir: string) => KeyBackend[] = () => [],
  log?: Log,
  /** Other hosts and the admin API, for governed parties (docs/keys.md). */
  topology: Pick<Parameters<typeof partyServices>[0], 'hosts' | 'admin' | 'allocationTimeoutMs'> = {},
) {
  const dir = keysDir ?? tempDir('quill-e2e-keys-');
  const client = new LedgerClient({ baseUrl: sandbox.url, timeoutMs: config.ledgerTimeoutMs });
  const keys = new Keyring([
    new KeyStore({ dir, passphrase: 'e2e passphrase', scrypt: { N: 1024 } }),
    ...moreBackends(dir),
  ]);
  const signer = verifyingSigner(keys);
  const parties = partyServices({
    registry: new PartyRegistry({ dir }),
    ledger: client,
    signer,
    keys,
    ...topology,
  });
  const wallet = await startWallet({
    config: withSandboxRegistries(config, sandbox),
    role,
    ledger: ledgerPort(client),
    auth: createVerifier(config.auth),
    keys,
    signer,
    parties,
    worker: { sweepEveryMs: 1000 },
    // The sandbox's demo coin, valued like any registry's holdings.
    recognizers: SANDBOX_RECOGNIZERS,
    ...(log ? { log } : {}),
  });
  const admin = await issueToken({ secret: SECRET, role: 'admin', ttlSeconds: 3600, subject: 'e2e' });
  async function call(method: string, path: string, body?: unknown, token = admin) {
    const res = await fetch(`${wallet.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return {
      status: res.status,
      json: (await res.json()) as Record<string, unknown> & { error?: { code: string } },
    };
  }
  return { wallet, client, keys, parties, call, dir, admin };
}

/** Intents find the sandbox's registries, as `quill serve --sandbox` does (configured ones win). */
export function withSandboxRegistries(config: Config, sandbox: Sandbox): Config {
  const registries = Object.fromEntries(
    Object.values(sandbox.registries).map((r) => [r.admin, r.registryUrl]),
  );
  return {
    ...config,
    intents: { ...config.intents, registries: { ...registries, ...config.intents.registries } },
  };
}

/** Prepares one command for `party` on the sandbox and returns the body Quill takes. */
export async function prepareOn(
  client: LedgerClient,
  party: string,
  command: Record<string, unknown>,
  scheme: Scheme = 'HASHING_SCHEME_VERSION_V2',
  extra: Record<string, unknown> = {},
) {
  const p = await client.prepare({
    userId: LEDGER_USER,
    commandId: randomUUID(),
    actAs: [party],
    synchronizerId: '',
    packageIdSelectionPreference: [],
    commands: [command],
    hashingSchemeVersion: scheme,
    ...extra,
  } as never);
  return {
    preparedTransaction: p.preparedTransaction,
    preparedTransactionHash: p.preparedTransactionHash,
    hashingSchemeVersion: p.hashingSchemeVersion as Scheme,
  };
}

export function tapCommand(rules: string, receiver: string, amount: string) {
  return {
    ExerciseCommand: {
      templateId: coinTemplate('CoinRules'),
      contractId: rules,
      choice: 'CoinRules_DevNet_Tap',
      choiceArgument: { receiver, amount },
    },
  };
}

/** The demo coin's Holding_Transfer: `amount` of `holding` to `receiver` (the change stays with its owner). */
export function spendCommand(holding: string, receiver: string, amount: string) {
  return {
    ExerciseCommand: {
      templateId: coinTemplate('Holding'),
      contractId: holding,
      choice: 'Holding_Transfer',
      choiceArgument: { receiver, amount },
    },
  };
}

export function noteCommand(owner: string) {
  return {
    CreateCommand: { templateId: '#quill-e2e:E2E:Note', createArguments: { owner, n: randomUUID() } },
  };
}
