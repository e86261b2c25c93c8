// `quill keys generate|list|show|disable|check`: KEYS_DIR and the passphrase come from the environment.
import { Command, Option } from 'commander';
import { CommandFailure, printJson, UsageError } from '../cli/support.ts';
import { KEY_ALGORITHMS, type KeyAlgorithm } from './algorithms.ts';
import { KeyStoreError } from './errors.ts';
import { KeyStore, type KeyView } from './keystore.ts';
import { passphraseFromEnv } from './passphrase.ts';

type Env = Record<string, string | undefined>;

/** The key store the environment describes: KEYS_DIR (default `keys`), the passphrase, KEYSTORE_SCRYPT_N. */
export function keyStoreFromEnv(env: Env = process.env): KeyStore {
  const dir = env.KEYS_DIR?.trim() || 'keys';
  const n = env.KEYSTORE_SCRYPT_N?.trim();
  let scrypt: { N: number } | undefined;
  if (n) {
    if (!/^\d+$/.test(n)) throw new KeyStoreError('CONFIG', 'KEYSTORE_SCRYPT_N must be a power of two');
    scrypt = { N: Number(n) };
  }
  return new KeyStore({ dir, passphrase: passphraseFromEnv(env), ...(scrypt ? { scrypt } : {}) });
}

/** Maps key-store errors to the CLI's exit codes: bad input/config 2, everything else 1. */
export async function runKeyCommand(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    if (err instanceof KeyStoreError) {
      if (err.code === 'BAD_INPUT' || err.code === 'CONFIG') throw new UsageError(err.message);
      throw new CommandFailure(err.message);
    }
    throw err;
  }
}

function describeKey(v: KeyView): string {
  return [
    `fingerprint  ${v.fingerprint}`,
    `algorithm    ${v.algorithm} (${v.keySpec})`,
    `status       ${v.status}`,
    `label        ${v.label ?? '-'}`,
    `created      ${v.createdAt}`,
    `public key   ${v.publicKey}`,
  ].join('\n');
}

function keyLine(v: KeyView): string {
  return [v.fingerprint, v.algorithm.padEnd(9), v.status.padEnd(8), v.createdAt, v.label ?? '']
    .join('  ')
    .trimEnd();
}

export function keysCommand(): Command {
  const keys = new Command('keys').description('manage the encrypted signing keys in KEYS_DIR');

  keys
    .command('generate')
    .description('create a key and print its public view')
    .addOption(
      new Option('--algorithm <algorithm>', 'signing algorithm')
        .choices(KEY_ALGORITHMS)
        .makeOptionMandatory(),
    )
    .option('--label <label>', 'a name for humans (1-100 characters)')
    .option('--json', 'print JSON')
    .action((opts: { algorithm: KeyAlgorithm; label?: string; json?: boolean }) =>
      runKeyCommand(async () => {
        const view = await keyStoreFromEnv().generate(opts.algorithm, opts.label);
        if (opts.json) printJson(view);
        else process.stdout.write(`${describeKey(view)}\n`);
      }),
    );

  keys
    .command('list')
    .description('list every key (each file is authenticated)')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      runKeyCommand(async () => {
        const views = await keyStoreFromEnv().list();
        if (opts.json) printJson(views);
        else process.stdout.write(views.map((v) => `${keyLine(v)}\n`).join(''));
      }),
    );

  keys
    .command('show')
    .description("print one key's public view")
    .argument('<fingerprint>', 'key fingerprint (1220...)')
    .option('--json', 'print JSON')
    .action((fingerprint: string, opts: { json?: boolean }) =>
      runKeyCommand(async () => {
        const view = await keyStoreFromEnv().get(fingerprint);
        if (opts.json) printJson(view);
        else process.stdout.write(`${describeKey(view)}\n`);
      }),
    );

  keys
    .command('disable')
    .description('disable a key for good: it never signs again')
    .argument('<fingerprint>', 'key fingerprint (1220...)')
    .action((fingerprint: string) =>
      runKeyCommand(async () => {
        const view = await keyStoreFromEnv().disable(fingerprint);
        process.stdout.write(`disabled ${view.fingerprint}\n`);
      }),
    );

  keys
    .command('check')
    .description('unlock every key file with the passphrase; name each one that fails (exit 1 if any)')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      runKeyCommand(async () => {
        const store = keyStoreFromEnv();
        const results = await store.check();
        if (opts.json) printJson(results);
        else if (results.length === 0) process.stdout.write(`no key files in ${store.dir}\n`);
        else {
          for (const r of results)
            process.stdout.write(r.ok ? `ok      ${r.file}\n` : `FAILED  ${r.message}\n`);
        }
        const failed = results.filter((r) => !r.ok).length;
        if (failed > 0) throw new CommandFailure(`${failed} of ${results.length} key files failed the check`);
      }),
    );

  return keys;
}
