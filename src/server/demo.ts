// `quill serve --demo`: generated secrets kept in .demo/ (git-ignored), a demo key and party, and one
// prepared transaction written to .demo/submission.json so that a single curl command submits it.
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { issueToken, type PartyAdmin } from '../api/index.ts';
import type { Config } from '../config.ts';
import type { LedgerClient } from '../ledger/index.ts';
import type { Log } from '../log.ts';
import type { KeyStore } from '../signing/index.ts';
import type { PartyLookup } from './adapters.ts';

export interface DemoSecrets {
  dir: string;
  secret: string;
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

/** Creates .demo/ with an auth secret and a key-store passphrase (once) and points the config at them. */
export async function demoSecrets(config: Config): Promise<DemoSecrets> {
  const dir = resolve(DEMO_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const secret = config.auth.jwtSecret ?? (await secretFile(join(dir, 'auth-secret')));
  config.auth = { ...config.auth, jwtSecret: secret, algorithms: ['HS256'] };
  delete config.auth.jwksUrl;
  config.keystorePassphrase ??= await secretFile(join(dir, 'keystore-passphrase'));
  if (!process.env.KEYS_DIR) {
    config.keysDir = join(dir, 'keys');
    // The embedded ledger starts empty: parties registered by an earlier demo run no longer exist on it.
    await rm(join(config.keysDir, 'parties'), { recursive: true, force: true });
  }
  return { dir, secret };
}

export async function prepareDemo(o: {
  config: Config;
  demo: DemoSecrets;
  keys: KeyStore;
  parties: PartyLookup & PartyAdmin;
  client: LedgerClient;
  walletUrl: string;
  sandbox: { url: string; scanUrl: string };
  log: Log;
}): Promise<void> {
  const keys = (await o.keys.list()).filter((k) => k.status === 'active');
  const key = keys[0] ?? (await o.keys.generate('ed25519', 'demo'));
  const known = (await o.parties.list()).find((p) => p.keyFingerprint === key.fingerprint);
  const party = known ?? (await o.parties.onboard({ keyFingerprint: key.fingerprint, partyHint: 'demo' }));
  const prepared = await o.client.prepare({
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
  const token = await issueToken({
    secret: o.demo.secret,
    role: 'admin',
    ttlSeconds: 12 * 3600,
    subject: 'demo-admin',
  });
  const rel = `${DEMO_DIR}/submission.json`;
  process.stdout.write(
    [
      '',
      'Quill demo is running.',
      `  wallet API   ${o.walletUrl}   (docs ${o.walletUrl}/docs, OpenAPI ${o.walletUrl}/openapi.json)`,
      `  ledger       ${o.sandbox.url}   (embedded sandbox; activity feed ${o.sandbox.scanUrl})`,
      `  demo party   ${party.partyId}`,
      `  secrets      ${o.demo.dir} (auth secret, key-store passphrase, keys)`,
      '',
      `Admin token (12 h):`,
      `  ${token}`,
      '',
      'Submit the prepared demo transaction and wait for its outcome:',
      `  curl -s -X POST '${o.walletUrl}/wallet/v1/submissions?wait=10' -H 'authorization: Bearer ${token}' -H 'content-type: application/json' --data @${rel}`,
      '',
    ].join('\n'),
  );
  o.log('info', `demo ready: party ${party.partyId}, request body in ${rel}`);
}
