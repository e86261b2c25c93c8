// `quill keys generate|adopt|list|show|disable|check|backends|reseal`: KEYS_DIR and each backend's settings (config
// `keys`). generate, adopt, disable and reseal also append their audit entries (config `redis`), as the API's key
// routes do.
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { AuditLog, type KeyAuditKind } from '../audit/index.ts';
import { loadConfig } from '../config/index.ts';
import { CommandFailure, UsageError } from '../errors.ts';
import { redisConnection } from '../redis/index.ts';
import { openKeyring } from '../server/parts.ts';
import {
  KEY_ALGORITHMS,
  KEY_BACKEND_TYPES,
  type KeyAlgorithm,
  type KeyBackendName,
  type Keyring,
  KeyStore,
  type KeyStoreOptions,
  type KeyView,
} from '../signing/index.ts';

const BACKEND_NAMES = KEY_BACKEND_TYPES.map((t) => t.name);

import { type CliEnv, printJson } from './support.ts';

/** Only the keys section: an unrelated bad variable never stops a key command. */
async function withKeys<T>(env: CliEnv, run: (keys: Keyring, keysDir: string) => Promise<T>): Promise<T> {
  const config = loadConfig(env, ['keys']);
  const keys = openKeyring(config);
  try {
    return await run(keys, config.keysDir);
  } finally {
    await keys.close();
  }
}

/** Who ran a key command, as its audit entry names them: `cli:<OS user>` (`cli` when the OS names nobody). */
function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

/**
 * A key change and its audit entry. A change the chain would miss is worse than none, so Redis must answer before
 * anything changes (`change` calls `reachable()` right before it changes anything; else exit 1, nothing changed).
 * The entry follows the change (files or a token, not Redis): if Redis fails in between, the command says that the
 * change stands without its entry (exit 1).
 */
async function audited(
  env: CliEnv,
  kind: KeyAuditKind,
  change: (keys: Keyring, reachable: () => Promise<void>) => Promise<{ view: KeyView; changed: boolean }>,
): Promise<KeyView> {
  const config = loadConfig(env, ['keys', 'redis']);
  const redis = redisConnection(config.redisTarget, { maxRetriesPerRequest: 1, connectTimeout: 5_000 });
  const reachable = async () => {
    await redis.ping().catch((err: Error) => {
      throw new CommandFailure(
        `cannot reach Redis (REDIS_URL) to write the audit entry, so nothing was changed: ${err.message}`,
      );
    });
  };
  try {
    const { view, changed } = await withKeys(env, (k) => change(k, reachable));
    if (changed)
      await new AuditLog(redis, config.redisPrefix).appendKey(kind, cliActor(), view).catch((err: Error) => {
        throw new CommandFailure(
          `key ${view.fingerprint}: the change stands, but its audit entry (${kind}) could not be written: ${err.message}`,
        );
      });
    return view;
  } finally {
    redis.disconnect();
  }
}

/** The new passphrase of `keys reseal`, from its file (one trailing newline dropped, as KEYSTORE_PASSPHRASE_FILE). */
function newPassphraseFrom(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    throw new UsageError(
      `--new-passphrase-file: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if (text.length === 0) throw new UsageError(`--new-passphrase-file: the file ${path} is empty`);
  return text;
}

/**
 * `quill keys reseal`: every key file from the current passphrase to the new one, each file replaced atomically,
 * none written unless all open. One audit entry per key re-sealed (`key.reseal`, right after its file is
 * replaced), as each key's other entries: a key's history in the chain then shows it, and an interrupted run
 * leaves an entry for exactly the files it replaced. Redis must answer before the first file is written.
 */
async function reseal(env: CliEnv, newPassphraseFile: string): Promise<void> {
  const config = loadConfig(env, ['keys', 'redis']);
  const options = config.keyBackends.file as KeyStoreOptions | undefined;
  if (!options)
    throw new UsageError(
      'no key-store passphrase: set KEYSTORE_PASSPHRASE or KEYSTORE_PASSPHRASE_FILE to the current one',
    );
  const newPassphrase = newPassphraseFrom(newPassphraseFile);
  if (newPassphrase === options.passphrase)
    throw new UsageError(
      '--new-passphrase-file holds the current passphrase: nothing to re-seal (after a reseal, the new one is current)',
    );
  const store = new KeyStore(options);
  const redis = redisConnection(config.redisTarget, { maxRetriesPerRequest: 1, connectTimeout: 5_000 });
  const audit = new AuditLog(redis, config.redisPrefix);
  const actor = cliActor();
  try {
    const { resealed, already } = await store.reseal(newPassphrase, {
      beforeWrite: async () => {
        await redis.ping().catch((err: Error) => {
          throw new CommandFailure(
            `cannot reach Redis (REDIS_URL) to write the audit entries, so nothing was re-sealed: ${err.message}`,
          );
        });
      },
      afterWrite: async (view) => {
        await audit.appendKey('key.reseal', actor, view).catch((err: Error) => {
          throw new CommandFailure(
            `key ${view.fingerprint}: re-sealed, but its audit entry (key.reseal) could not be written, so the ` +
              `command stopped there (run it again to re-seal the rest): ${err.message}`,
          );
        });
        process.stdout.write(`resealed  ${view.fingerprint}\n`);
      },
    });
    for (const v of already) process.stdout.write(`already   ${v.fingerprint}\n`);
    process.stdout.write(
      `${resealed.length} key files re-sealed with the new passphrase, ${already.length} already were, in ` +
        `${config.keysDir}; restart each process with the new KEYSTORE_PASSPHRASE or KEYSTORE_PASSPHRASE_FILE\n`,
    );
  } finally {
    redis.disconnect();
  }
}

function describeKey(v: KeyView): string {
  return [
    `fingerprint  ${v.fingerprint}`,
    `algorithm    ${v.algorithm} (${v.keySpec})`,
    `status       ${v.status}`,
    `backend      ${v.backend}`,
    `label        ${v.label ?? '-'}`,
    `created      ${v.createdAt}`,
    `public key   ${v.publicKey}`,
  ].join('\n');
}

function keyLine(v: KeyView): string {
  return [
    v.fingerprint,
    v.algorithm.padEnd(9),
    v.backend.padEnd(6),
    v.status.padEnd(8),
    v.createdAt,
    v.label ?? '',
  ]
    .join('  ')
    .trimEnd();
}

export function keysCommand(env: CliEnv = {}): Command {
  const keys = new Command('keys').description(
    `manage the signing keys in their backends (${KEY_BACKEND_TYPES.map((t) => `${t.name}: ${t.summary}`).join('; ')})`,
  );

  keys
    .command('generate')
    .description('create a key and print its public view')
    .addOption(
      new Option('--algorithm <algorithm>', 'signing algorithm')
        .choices(KEY_ALGORITHMS)
        .makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--backend <backend>',
        'where the key is made and kept (default: KEYS_DEFAULT_BACKEND, else file)',
      ).choices(BACKEND_NAMES),
    )
    .option('--label <label>', 'a name for humans (1-100 characters)')
    .option('--json', 'print JSON')
    .action(
      async (opts: { algorithm: KeyAlgorithm; backend?: KeyBackendName; label?: string; json?: boolean }) => {
        const view = await audited(env, 'key.generate', async (k, reachable) => {
          await reachable();
          return {
            view: await k.generate(opts.algorithm, opts.label, opts.backend ?? k.defaultBackend),
            changed: true,
          };
        });
        if (opts.json) printJson(view);
        else process.stdout.write(`${describeKey(view)}\n`);
      },
    );

  keys
    .command('adopt')
    .description('take over a key made outside Quill (an HSM key made with its own tools) and print its view')
    .addOption(
      new Option('--backend <backend>', 'the backend that holds it')
        .choices(KEY_BACKEND_TYPES.filter((t) => t.makes.adopt).map((t) => t.name))
        .makeOptionMandatory(),
    )
    .requiredOption(
      '--ref <ref>',
      'the key as its backend names it (pkcs11: label:<CKA_LABEL> or id:<hex CKA_ID>)',
    )
    .option('--label <label>', 'a name for humans (1-100 characters)')
    .option('--json', 'print JSON')
    .action(async (opts: { backend: KeyBackendName; ref: string; label?: string; json?: boolean }) => {
      // A key already held is answered as it is, and not audited again (as the API does).
      const view = await audited(env, 'key.adopt', async (k, reachable) => {
        const before = new Set((await k.list()).map((v) => v.fingerprint));
        await reachable();
        const adopted = await k.adopt(opts.backend, opts.ref, opts.label);
        return { view: adopted, changed: !before.has(adopted.fingerprint) };
      });
      if (opts.json) printJson(view);
      else process.stdout.write(`${describeKey(view)}\n`);
    });

  keys
    .command('backends')
    .description('list the key backends: which are configured, the default, and what each can do')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const backends = await withKeys(env, async (k) => k.describe());
      if (opts.json) printJson(backends);
      else
        for (const b of backends) {
          const can = [b.generate ? 'generate' : '', b.adopt ? 'adopt' : ''].filter(Boolean).join(', ');
          const state = b.configured
            ? `configured${b.default ? ', default' : ''}; ${can || 'signs only'}`
            : `not configured: ${b.setUp}`;
          process.stdout.write(`${b.name.padEnd(8)}${b.summary} (${state})\n`);
        }
    });

  keys
    .command('list')
    .description('list every key (each file is authenticated); name each file that fails (exit 1 if any)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const [{ keys: views, problems }, dir] = await withKeys(
        env,
        async (k, d) => [await k.survey(), d] as const,
      );
      if (opts.json) printJson(views);
      else process.stdout.write(views.map((v) => `${keyLine(v)}\n`).join(''));
      // The healthy keys stay listed; the broken files go to stderr so the listing stays parseable.
      for (const p of problems) process.stderr.write(`FAILED  ${join(dir, p.file)}: ${p.problem}\n`);
      if (problems.length > 0) {
        const total = views.length + problems.length;
        throw new CommandFailure(`${problems.length} of ${total} key files failed the check`);
      }
    });

  keys
    .command('show')
    .description("print one key's public view")
    .argument('<fingerprint>', 'key fingerprint (1220...)')
    .option('--json', 'print JSON')
    .action(async (fingerprint: string, opts: { json?: boolean }) => {
      const view = await withKeys(env, (k) => k.get(fingerprint));
      if (opts.json) printJson(view);
      else process.stdout.write(`${describeKey(view)}\n`);
    });

  keys
    .command('disable')
    .description('disable a key for good: it never signs again')
    .argument('<fingerprint>', 'key fingerprint (1220...)')
    .action(async (fingerprint: string) => {
      const view = await audited(env, 'key.disable', async (k, reachable) => {
        const before = await k.get(fingerprint);
        await reachable();
        return { view: await k.disable(fingerprint), changed: before.status !== 'disabled' };
      });
      process.stdout.write(`disabled ${view.fingerprint}\n`);
    });

  keys
    .command('reseal')
    .description(
      'encrypt every key file in KEYS_DIR again, from the current passphrase (KEYSTORE_PASSPHRASE or ' +
        'KEYSTORE_PASSPHRASE_FILE) to a new one; nothing is written unless every file opens; audited per key',
    )
    .requiredOption(
      '--new-passphrase-file <path>',
      'a file holding the new passphrase (one trailing newline dropped); never on the command line',
    )
    .action(async (opts: { newPassphraseFile: string }) => {
      await reseal(env, opts.newPassphraseFile);
    });

  keys
    .command('check')
    .description(
      'unlock every key file with the passphrase and find every PKCS#11 key in its token; name each one that fails (exit 1 if any)',
    )
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const [results, dir] = await withKeys(env, async (k, d) => [await k.check(), d] as const);
      if (opts.json) printJson(results);
      else if (results.length === 0) process.stdout.write(`no key files in ${dir}\n`);
      else {
        for (const r of results)
          process.stdout.write(r.ok ? `ok      ${r.location}\n` : `FAILED  ${r.message}\n`);
      }
      const failed = results.filter((r) => !r.ok).length;
      if (failed > 0) throw new CommandFailure(`${failed} of ${results.length} key files failed the check`);
    });

  return keys;
}
