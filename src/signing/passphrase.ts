// The key-store passphrase comes from KEYSTORE_PASSPHRASE or KEYSTORE_PASSPHRASE_FILE, exactly one of them.
import { readFileSync } from 'node:fs';
import { SigningError } from './errors.ts';

/** Reads the passphrase from the environment; throws SigningError('CONFIG') naming the variable, never the value. */
export function passphraseFromEnv(env: Record<string, string | undefined>): string {
  const direct = env.KEYSTORE_PASSPHRASE;
  const file = env.KEYSTORE_PASSPHRASE_FILE;
  const hasDirect = direct !== undefined && direct !== '';
  const hasFile = file !== undefined && file.trim() !== '';
  if (hasDirect && hasFile) {
    throw new SigningError(
      'CONFIG',
      'KEYSTORE_PASSPHRASE and KEYSTORE_PASSPHRASE_FILE are both set: choose one',
    );
  }
  if (hasFile) {
    let text: string;
    try {
      text = readFileSync(file.trim(), 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new SigningError('CONFIG', `KEYSTORE_PASSPHRASE_FILE: cannot read ${file.trim()} (${code})`);
    }
    const passphrase = text.replace(/\r?\n$/, ''); // one trailing newline is the file's, not the passphrase's
    if (passphrase.length === 0) {
      throw new SigningError('CONFIG', `KEYSTORE_PASSPHRASE_FILE: ${file.trim()} is empty`);
    }
    return passphrase;
  }
  if (hasDirect) return direct;
  if (direct === '') throw new SigningError('CONFIG', 'KEYSTORE_PASSPHRASE is empty');
  throw new SigningError(
    'CONFIG',
    'no key-store passphrase: set KEYSTORE_PASSPHRASE or KEYSTORE_PASSPHRASE_FILE',
  );
}
