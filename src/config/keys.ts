// The key store (a folder of passphrase-encrypted files) and the PKCS#11 backend (an HSM's token).
import { z } from 'zod';
import { defined, intIn, optionalText, readSecretFile, secret } from './env.ts';
import { section } from './section.ts';

const scryptN = z
  .string()
  .trim()
  .refine(
    (s) =>
      /^\d+$/.test(s) && Number(s) >= 2 ** 10 && Number(s) <= 2 ** 20 && (Number(s) & (Number(s) - 1)) === 0,
    {
      error: 'must be a power of two between 2^10 and 2^20',
    },
  )
  .transform(Number)
  .optional();

export const keys = section({
  summary:
    'Signing keys: the key store folder and its passphrase, and the PKCS#11 backend (see "Keys in an HSM" ' +
    'in the README).',
  vars: {
    KEYS_DIR: z.string().trim().min(1).default('keys').describe('key store folder'),
    KEYSTORE_PASSPHRASE: secret(
      z.string().optional(),
      'unlocks the keys (this or `KEYSTORE_PASSPHRASE_FILE`; needed by the API role)',
    ),
    KEYSTORE_PASSPHRASE_FILE: optionalText.describe(
      'or: a file holding the key-store passphrase (one trailing newline dropped)',
    ),
    KEYSTORE_SCRYPT_N: scryptN.describe(
      'scrypt cost of newly written key files (power of two, 2^10–2^20); files keep their own; ' +
        'unset = 131072',
    ),
    PKCS11_MODULE: optionalText.describe(
      "path of a PKCS#11 library (an HSM's, or `/usr/lib/softhsm/libsofthsm2.so`): enables the `pkcs11` " +
        "key backend; without a key-store passphrase only the token's keys are in reach",
    ),
    PKCS11_TOKEN_LABEL: optionalText.describe('the token, by label (this or `PKCS11_SLOT`)'),
    PKCS11_SLOT: z.coerce
      .number()
      .int()
      .min(0)
      .max(2 ** 48)
      .optional()
      .describe('or: the token, by slot number'),
    PKCS11_PIN: secret(
      z.string().optional(),
      "the token user's PIN (this or `PKCS11_PIN_FILE`); a refused PIN is never tried again until restart " +
        '(tokens lock)',
    ),
    PKCS11_PIN_FILE: optionalText.describe("or: a file holding the token user's PIN"),
    PKCS11_SESSIONS: intIn(1, 256, 8).describe(
      'sessions kept open on the token: how many signatures run at once',
    ),
    KEYS_DEFAULT_BACKEND: z
      .enum(['file', 'pkcs11'])
      .optional()
      .describe(
        'where `POST /wallet/v1/keys` and `quill keys generate` make a key when the request names no ' +
          'backend; unset = `file` (`pkcs11` when it is the only backend)',
      ),
  },
  outputs: {
    keysDir: true,
    keystorePassphrase: true,
    keystoreScryptN: true,
    pkcs11: true,
    defaultKeyBackend: true,
  },
  build: (e, problem) => {
    let pkcs11:
      | { module: string; tokenLabel?: string; slot?: number; pin: string; sessions: number }
      | undefined;
    if (e.PKCS11_MODULE !== undefined) {
      if ((e.PKCS11_TOKEN_LABEL === undefined) === (e.PKCS11_SLOT === undefined)) {
        problem('PKCS11_MODULE needs exactly one of PKCS11_TOKEN_LABEL and PKCS11_SLOT');
      }
      let pin: string | undefined;
      if (e.PKCS11_PIN !== undefined && e.PKCS11_PIN_FILE !== undefined) {
        problem('PKCS11_PIN and PKCS11_PIN_FILE are both set: choose one');
      } else if (e.PKCS11_PIN_FILE !== undefined) {
        pin = readSecretFile(e.PKCS11_PIN_FILE, 'PKCS11_PIN_FILE', problem);
      } else if (e.PKCS11_PIN === undefined || e.PKCS11_PIN === '') {
        problem('PKCS11_MODULE needs PKCS11_PIN or PKCS11_PIN_FILE');
      } else {
        pin = e.PKCS11_PIN;
      }
      pkcs11 = {
        module: e.PKCS11_MODULE,
        ...defined({ tokenLabel: e.PKCS11_TOKEN_LABEL, slot: e.PKCS11_SLOT }),
        pin: pin ?? '',
        sessions: e.PKCS11_SESSIONS,
      };
    } else if (
      [e.PKCS11_TOKEN_LABEL, e.PKCS11_SLOT, e.PKCS11_PIN, e.PKCS11_PIN_FILE].some((v) => v !== undefined)
    ) {
      problem('PKCS11_TOKEN_LABEL, PKCS11_SLOT and PKCS11_PIN need PKCS11_MODULE (the PKCS#11 library path)');
    }
    if (e.KEYS_DEFAULT_BACKEND === 'pkcs11' && !pkcs11)
      problem('KEYS_DEFAULT_BACKEND=pkcs11 needs PKCS11_MODULE');
    let keystorePassphrase: string | undefined;
    if (e.KEYSTORE_PASSPHRASE !== undefined && e.KEYSTORE_PASSPHRASE_FILE !== undefined) {
      problem('KEYSTORE_PASSPHRASE and KEYSTORE_PASSPHRASE_FILE are both set: choose one');
    } else if (e.KEYSTORE_PASSPHRASE_FILE !== undefined) {
      keystorePassphrase = readSecretFile(e.KEYSTORE_PASSPHRASE_FILE, 'KEYSTORE_PASSPHRASE_FILE', problem);
    } else {
      keystorePassphrase = e.KEYSTORE_PASSPHRASE;
    }
    return {
      keysDir: e.KEYS_DIR,
      // Absent when neither variable is set: only commands that unlock keys need it (see requirePassphrase).
      ...defined({ keystorePassphrase, keystoreScryptN: e.KEYSTORE_SCRYPT_N }),
      /** The PKCS#11 key backend, when PKCS11_MODULE is set. */
      ...defined({ pkcs11, defaultKeyBackend: e.KEYS_DEFAULT_BACKEND }),
    };
  },
});
