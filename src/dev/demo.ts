// `quill serve --demo`: generated secrets kept in .demo/ (git-ignored), a demo key and party, and one
// prepared transaction written to .demo/submission.json so that a single curl command submits it. The embedded
// ledger lives in memory: each run resets the wallet's state in Redis with it (resetDemoState).
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LedgerClient } from '@quill/canton/ledger';
import type { Redis } from 'ioredis';
import { issueToken } from '../auth/index.ts';
import { envHas, loadConfig } from '../config/index.ts';
import { CommandFailure } from '../errors.ts';
import type { Log } from '../log.ts';
import { type RedisTarget, redisConnection } from '../redis/connection.ts';
import { keyPrefix } from '../redis/keys.ts';
import { openKeyring } from '../server/parts.ts';

export interface DemoSecrets {
  dir: string;
  secret: string;
  /** The demo's own audit checkpoint file (absent when AUDIT_KEY was given): it starts over with the chain. */
  auditCheckpoints?: string;
  /** What .demo/env points the CLI at (writeDemoEnv): files, never the secrets themselves, where there are files. */
  cli: {
    /** The file holding the auth secret (absent: AUTH_JWT_SECRET was given in the environment). */
    authSecretFile?: string;
    /** The file holding the key-store passphrase (absent: KEYSTORE_PASSPHRASE was given). */
    passphraseFile?: string;
    keysDir: string;
    redisPrefix: string;
  };
}

const DEMO_DIR = '.demo';

async function secretFile(path: string): Promise<string> {
  try {
    const s = (await readFile(path, 'utf8')).trim();
    if (s.length >= 32) return s;
  } catch {
    // first run: generate below
  }
  const s = randomBytes(36).toString('base64url');
  await writeFile(path, `${s}\n`, { mode: 0o600 });
  return s;
}

/** The demo's Redis key prefix, unless REDIS_PREFIX names another (then nothing is cleared). */
export const DEMO_REDIS_PREFIX = 'quill-demo';

/**
 * Creates .demo/ with an auth secret and a key-store passphrase (once) and returns the environment overrides
 * that point the wallet at them; the config is loaded from the result, never changed afterwards.
 */
export async function demoEnv(
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ overrides: Record<string, string | undefined>; demo: DemoSecrets }> {
  const dir = resolve(DEMO_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  // The secret as given: AUTH_JWT_SECRET, or AUTH_JWT_SECRET_FILE (as a shell that sourced .demo/env has it; the
  // configuration reads and checks that file, never rewritten here); else the demo's own file, made once.
  const givenFile =
    !envHas(env, 'AUTH_JWT_SECRET') && envHas(env, 'AUTH_JWT_SECRET_FILE')
      ? resolve(env.AUTH_JWT_SECRET_FILE as string)
      : undefined;
  const authSecretFile = envHas(env, 'AUTH_JWT_SECRET') ? undefined : (givenFile ?? join(dir, 'auth-secret'));
  const secret = envHas(env, 'AUTH_JWT_SECRET')
    ? (env.AUTH_JWT_SECRET as string)
    : givenFile
      ? await readFile(givenFile, 'utf8').then(
          (t) => t.replace(/\r?\n$/, ''),
          () => '', // unreadable: the configuration says so when it loads
        )
      : await secretFile(join(dir, 'auth-secret'));
  const overrides: Record<string, string | undefined> = {
    ...(givenFile ? { AUTH_JWT_SECRET_FILE: givenFile } : { AUTH_JWT_SECRET: secret }),
    AUTH_JWKS_URL: undefined,
    AUTH_JWT_ALGORITHMS: undefined,
  };
  // The demo is for this machine: its API on loopback unless HOST says otherwise.
  if (!envHas(env, 'HOST')) overrides.HOST = '127.0.0.1';
  // An integrator's webhook receiver on this machine works in the demo; other private addresses stay refused.
  if (!envHas(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS')) overrides.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'loopback';
  // A shell that sourced .demo/env names the embedded ledger of the last run in LEDGER_URL: that one is the
  // demo's own, not a participant to run against.
  if (envHas(env, 'LEDGER_URL') && env.LEDGER_URL === (await demoLedgerUrl(dir)))
    overrides.LEDGER_URL = undefined;
  // The embedded sandbox runs without ledger auth, so no token names the wallet's ledger user: use its admin.
  if (!envHas(env, 'LEDGER_URL') && !envHas(env, 'LEDGER_USER_ID'))
    overrides.LEDGER_USER_ID = 'participant_admin';
  let passphraseFile = envHas(env, 'KEYSTORE_PASSPHRASE_FILE')
    ? resolve(env.KEYSTORE_PASSPHRASE_FILE as string)
    : undefined;
  if (!envHas(env, 'KEYSTORE_PASSPHRASE') && !passphraseFile) {
    passphraseFile = join(dir, 'keystore-passphrase');
    overrides.KEYSTORE_PASSPHRASE = await secretFile(passphraseFile);
  }
  // Its own key space, which each run clears with the new, empty embedded ledger (resetDemoState): never the
  // default `quill` another wallet on this Redis may use.
  if (!envHas(env, 'REDIS_PREFIX')) overrides.REDIS_PREFIX = DEMO_REDIS_PREFIX;
  const demoKeys = join(dir, 'keys');
  const keysDir = envHas(env, 'KEYS_DIR') ? resolve(env.KEYS_DIR as string) : demoKeys;
  if (!envHas(env, 'KEYS_DIR')) overrides.KEYS_DIR = demoKeys;
  // The embedded ledger starts empty: parties registered by an earlier demo run no longer exist on it (the demo's
  // own key folder only, also when a shell that sourced .demo/env names it).
  if (keysDir === demoKeys) await rm(join(demoKeys, 'parties'), { recursive: true, force: true });
  // Audit checkpoints out of the box, in .demo/ (demoAudit: its key is made once Redis answers).
  const auditCheckpoints =
    !envHas(env, 'AUDIT_KEY') && !envHas(env, 'AUDIT_CHECKPOINT_FILE')
      ? join(dir, 'audit-checkpoints.jsonl')
      : undefined;
  if (auditCheckpoints) overrides.AUDIT_CHECKPOINT_FILE = auditCheckpoints;
  const cli = {
    ...(authSecretFile ? { authSecretFile } : {}),
    ...(passphraseFile ? { passphraseFile } : {}),
    keysDir,
    redisPrefix: (overrides.REDIS_PREFIX ?? env.REDIS_PREFIX) as string,
  };
  return { overrides, demo: { dir, secret, ...(auditCheckpoints ? { auditCheckpoints } : {}), cli } };
}

const ENV_FILE = 'env';

/** The LEDGER_URL the last run wrote to .demo/env, if any. */
async function demoLedgerUrl(dir: string): Promise<string | undefined> {
  const text = await readFile(join(dir, ENV_FILE), 'utf8').catch(() => '');
  const line = /^export LEDGER_URL='([^']*)'$/m.exec(text);
  return line?.[1];
}

/** A value as one single-quoted shell word. */
function shellWord(v: string): string {
  return `'${v.replaceAll("'", `'\\''`)}'`;
}

/**
 * .demo/env: `source .demo/env` and every CLI command talks to this demo (the variables src/config reads for them:
 * `client`, `auth`, `keys`, `redis`, `ledger`). Secrets stay in their files where there are files; the admin token
 * is written, as the banner prints it, in a file only its owner reads. Without a `quill` on PATH it defines one
 * running this checkout's bin/quill.js.
 */
export async function writeDemoEnv(o: {
  demo: DemoSecrets;
  walletUrl: string;
  token: string;
  redisUrl: string;
  ledgerUrl: string;
}): Promise<string> {
  const { cli } = o.demo;
  const vars: [string, string][] = [
    ['QUILL_URL', o.walletUrl],
    ['QUILL_TOKEN', o.token],
    ...(cli.authSecretFile ? [['AUTH_JWT_SECRET_FILE', cli.authSecretFile] as [string, string]] : []),
    ['KEYS_DIR', cli.keysDir],
    ...(cli.passphraseFile ? [['KEYSTORE_PASSPHRASE_FILE', cli.passphraseFile] as [string, string]] : []),
    ['REDIS_URL', o.redisUrl],
    ['REDIS_PREFIX', cli.redisPrefix],
    ['LEDGER_URL', o.ledgerUrl],
  ];
  const bin = fileURLToPath(new URL('../../bin/quill.js', import.meta.url));
  const lines = [
    '# Written by `npm start` (quill serve --demo) for this run: `source .demo/env`, then any quill command.',
    '# QUILL_TOKEN is an admin token for 12 h; the secrets stay in their files.',
    ...vars.map(([k, v]) => `export ${k}=${shellWord(v)}`),
    `command -v quill >/dev/null 2>&1 || quill() { node ${shellWord(bin)} "$@"; }`,
    '',
  ];
  const file = join(o.demo.dir, ENV_FILE);
  await writeFile(file, lines.join('\n'), { mode: 0o600 });
  await chmod(file, 0o600);
  return `${DEMO_DIR}/${ENV_FILE}`;
}

/**
 * The demo's audit key (AUDIT_KEY unless one was given): made after the Redis check, since sealing a new key file
 * takes the key store's scrypt, and a machine without Redis is told so at once.
 */
export async function demoAudit(
  env: Readonly<Record<string, string | undefined>>,
  demo: DemoSecrets,
): Promise<Record<string, string>> {
  if (envHas(env, 'AUDIT_KEY')) return {};
  return { AUDIT_KEY: await demoAuditKey(env, join(demo.dir, 'audit-key')) };
}

/** The demo's audit key: the one named in `file` while it is active, else a new Ed25519 key (named there). */
async function demoAuditKey(
  env: Readonly<Record<string, string | undefined>>,
  file: string,
): Promise<string> {
  const keys = openKeyring(loadConfig(env, ['keys']));
  try {
    const known = await readFile(file, 'utf8').then(
      (s) => s.trim(),
      () => undefined,
    );
    if (known) {
      const view = await keys.get(known).catch(() => undefined);
      if (view?.status === 'active') return view.fingerprint;
    }
    const view = await keys.generate('ed25519', 'quill-audit', 'file');
    await writeFile(file, `${view.fingerprint}\n`, { mode: 0o600 });
    return view.fingerprint;
  } finally {
    await keys.close();
  }
}

/**
 * The embedded ledger starts empty on every run, so the wallet's state in Redis starts over with it: deletes every
 * key under the demo's own prefix (records, history and the watcher's checkpoint, events, webhooks, policies, the audit
 * chain, the queues) before the wallet starts. Returns how many keys it deleted.
 */
export async function resetDemoState(target: RedisTarget, prefix: string): Promise<number> {
  const conn = redisConnection(target, { maxRetriesPerRequest: 1 });
  // The prefix holds letters, digits, `_ . -` and a Cluster's braces: nothing a glob treats specially.
  const match = `${keyPrefix(prefix)}*`;
  const nodes = target.clusterNodes?.length
    ? (conn as unknown as { nodes(role: 'master'): Redis[] }).nodes('master')
    : [conn];
  let deleted = 0;
  try {
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) deleted += await conn.unlink(key);
      } while (cursor !== '0');
    }
  } finally {
    conn.disconnect();
  }
  return deleted;
}

/** An admin call to the wallet's own API. */
async function call<T>(
  walletUrl: string,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
) {
  const res = await fetch(`${walletUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json().catch(() => undefined)) as T & { error?: { message?: string } };
  if (!res.ok) throw new CommandFailure(`demo: ${method} ${path}: ${json?.error?.message ?? res.status}`);
  return json;
}

interface KeyItem {
  fingerprint: string;
  status: string;
  label?: string | null;
}
interface PartyItem {
  partyId: string;
  keyFingerprint: string;
  synchronizerId: string;
}

/**
 * The demo's key, party and prepared transaction, made through the wallet's own API as any integrator would (an
 * admin token from the demo's secret), and the lines that tell what to do next.
 */
export async function prepareDemo(o: {
  demo: DemoSecrets;
  walletUrl: string;
  /** `userId`: the wallet's ledger user, which prepares the demo transaction too. */
  sandbox: { url: string; scanUrl: string; userId: string; token?: string };
  /** Gives the demo party its starting holdings; answers them for people ("1000.0 Amulet"). */
  fund?: (party: string) => string[];
  /** An instrument the demo party holds, for the printed transfer. */
  instrument?: { admin: string; id: string };
  /** Lets the receiver take the registries' instruments directly (no accept step). */
  preapprove?: (party: string) => void;
  /** The console sign-in link for the admin who started the demo (absent: the console is off). */
  consoleLink?: string;
  /** The Redis the wallet uses (a private one's URL when the demo started it), for .demo/env. */
  redisUrl: string;
  log: Log;
}): Promise<void> {
  const token = await issueToken({
    secret: o.demo.secret,
    role: 'admin',
    ttlSeconds: 12 * 3600,
    subject: 'demo-admin',
  });
  const api = <T>(method: 'GET' | 'POST', path: string, body?: unknown) =>
    call<T>(o.walletUrl, token, method, path, body);
  const keys = (await api<{ items: KeyItem[] }>('GET', '/wallet/v1/keys')).items;
  const parties = (await api<{ items: PartyItem[] }>('GET', '/wallet/v1/parties')).items;
  /** The demo's party named `hint`, with its own key (labelled so), made once and found again after a restart. */
  const demoParty = async (hint: string) => {
    const key =
      keys.find((k) => k.status === 'active' && (k.label ?? 'demo') === hint) ??
      (await api<KeyItem>('POST', '/wallet/v1/keys', { algorithm: 'ed25519', label: hint }));
    return (
      parties.find((p) => p.keyFingerprint === key.fingerprint) ??
      (await api<PartyItem>('POST', '/wallet/v1/parties', {
        keyFingerprint: key.fingerprint,
        partyHint: hint,
      }))
    );
  };
  const party = await demoParty('demo');
  // A second wallet party to send to (transfer intents, examples/custody-client), pre-approving both instruments.
  const receiver = await demoParty('demo-receiver');
  o.preapprove?.(receiver.partyId);
  await writeFile(join(o.demo.dir, 'receiver'), `${receiver.partyId}\n`, { mode: 0o600 });
  const funds = o.fund?.(party.partyId) ?? [];
  const ledger = new LedgerClient({
    baseUrl: o.sandbox.url,
    ...(o.sandbox.token ? { token: o.sandbox.token } : {}),
  });
  const prepared = await ledger.prepare({
    userId: o.sandbox.userId,
    commandId: `demo-${randomUUID()}`,
    actAs: [party.partyId],
    synchronizerId: party.synchronizerId,
    packageIdSelectionPreference: [],
    commands: [
      {
        CreateCommand: {
          templateId: '#quill-demo:Demo:Greeting',
          createArguments: { owner: party.partyId, message: 'hello from quill' },
        },
      },
    ],
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
  } as never);
  const file = join(o.demo.dir, 'submission.json');
  await writeFile(
    file,
    `${JSON.stringify(
      {
        preparedTransaction: prepared.preparedTransaction,
        preparedTransactionHash: prepared.preparedTransactionHash,
        hashingSchemeVersion: prepared.hashingSchemeVersion,
        party: party.partyId,
      },
      null,
      2,
    )}\n`,
    { mode: 0o600 },
  );
  const rel = `${DEMO_DIR}/submission.json`;
  const envFile = await writeDemoEnv({
    demo: o.demo,
    walletUrl: o.walletUrl,
    token,
    redisUrl: o.redisUrl,
    ledgerUrl: o.sandbox.url,
  });
  process.stdout.write(
    [
      '',
      'Quill demo is running.',
      `  wallet API   ${o.walletUrl}   (docs ${o.walletUrl}/docs, OpenAPI ${o.walletUrl}/openapi.json)`,
      `  ledger       ${o.sandbox.url}   (embedded sandbox; activity feed ${o.sandbox.scanUrl})`,
      `  demo party   ${party.partyId}`,
      `  receiver     ${receiver.partyId}   (${DEMO_DIR}/receiver)`,
      ...(funds.length > 0
        ? [`  holdings     ${funds.join(', ')}   (GET /wallet/v1/parties/<party>/holdings)`]
        : []),
      `  secrets      ${o.demo.dir} (auth secret, key-store passphrase, keys)`,
      '',
      `Admin token (12 h):`,
      `  ${token}`,
      '',
      'Submit the prepared demo transaction and wait for its outcome:',
      `  curl -s -X POST '${o.walletUrl}/wallet/v1/submissions?wait=10' -H 'authorization: Bearer ${token}' -H 'content-type: application/json' --data @${rel}`,
      '',
      'Or ask Quill for a token transfer (it prepares, checks what it signs, and submits):',
      `  curl -s -X POST '${o.walletUrl}/wallet/v1/transfers?wait=10' -H 'authorization: Bearer ${token}' -H 'content-type: application/json' --data '{"party":"${party.partyId}","receiver":"${receiver.partyId}","instrument":${o.instrument ? JSON.stringify(o.instrument) : '{"admin":"…","id":"…"}'},"amount":"10","memo":"first transfer"}'`,
      '',
      `The CLI against this demo (every command: quill --help):`,
      `  source ${envFile} && quill keys list && quill events tail --max 1`,
      '',
      ...(o.consoleLink
        ? [
            'Console sign-in link (admin, one use, 15 min; more with `quill console link`):',
            `  ${o.consoleLink}`,
            '',
          ]
        : []),
    ].join('\n'),
  );
  o.log('info', `demo ready: party ${party.partyId}, request body in ${rel}`);
}
