// The file backend: keys as passphrase-encrypted files in KEYS_DIR (keystore.ts), configured by the key-store
// passphrase and the scrypt cost of new files.
import { z } from 'zod';
import type { KeyBackendType } from './backend-type.ts';
import { KeyStore, type KeyStoreOptions } from './keystore.ts';

const scryptN = z
  .string()
  .trim()
  .refine(
    (s) =>
      /^\d+$/.test(s) && Number(s) >= 2 ** 10 && Number(s) <= 2 ** 20 && (Number(s) & (Number(s) - 1)) === 0,
    { error: 'must be a power of two between 2^10 and 2^20' },
  )
  .transform(Number)
  .optional();

const text = z
  .string()
  .transform((s) => s.trim())
  .optional()
  .transform((s) => (s ? s : undefined));

export const FILE_BACKEND: KeyBackendType<KeyStoreOptions> = {
  name: 'file',
  summary: 'passphrase-encrypted key files in KEYS_DIR',
  setUp: 'set KEYSTORE_PASSPHRASE or KEYSTORE_PASSPHRASE_FILE',
  makes: { generate: true, adopt: false },
  vars: {
    KEYSTORE_PASSPHRASE: z.string().optional().meta({
      description: 'unlocks the keys (this or `KEYSTORE_PASSPHRASE_FILE`; needed by the API role)',
      secret: true,
    }),
    KEYSTORE_PASSPHRASE_FILE: text.describe(
      'or: a file holding the key-store passphrase (one trailing newline dropped)',
    ),
    KEYSTORE_SCRYPT_N: scryptN.describe(
      'scrypt cost of newly written key files (power of two, 2^10–2^20); files keep their own; unset = 131072',
    ),
  },
  configure(e, ctx) {
    const direct = e.KEYSTORE_PASSPHRASE as string | undefined;
    const file = e.KEYSTORE_PASSPHRASE_FILE as string | undefined;
    if (direct !== undefined && file !== undefined) {
      ctx.problem('KEYSTORE_PASSPHRASE and KEYSTORE_PASSPHRASE_FILE are both set: choose one');
      return undefined;
    }
    const passphrase = file !== undefined ? ctx.readSecretFile(file, 'KEYSTORE_PASSPHRASE_FILE') : direct;
    if (passphrase === undefined || passphrase === '') return undefined;
    const n = e.KEYSTORE_SCRYPT_N as number | undefined;
    return { dir: ctx.keysDir, passphrase, ...(n !== undefined ? { scrypt: { N: n } } : {}) };
  },
  open: (options) => new KeyStore(options),
};
