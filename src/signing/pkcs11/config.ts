// The PKCS#11 backend's piece of the configuration: the library, the token (by label or slot), the user PIN and the
// sessions kept open; and how the backend opens with them.
import { z } from 'zod';
import type { KeyBackendType } from '../backend-type.ts';
import { openPkcs11Backend, type Pkcs11Options } from './backend.ts';

const text = z
  .string()
  .transform((s) => s.trim())
  .optional()
  .transform((s) => (s ? s : undefined));

export const PKCS11_BACKEND: KeyBackendType<Pkcs11Options> = {
  name: 'pkcs11',
  summary: 'keys inside a PKCS#11 token (an HSM); KEYS_DIR keeps only their public metadata',
  setUp: 'set PKCS11_MODULE, the token (PKCS11_TOKEN_LABEL or PKCS11_SLOT) and its PIN',
  makes: { generate: true, adopt: true },
  vars: {
    PKCS11_MODULE: text.describe(
      "path of a PKCS#11 library (an HSM's, or `/usr/lib/softhsm/libsofthsm2.so`): enables the `pkcs11` key " +
        "backend; without a key-store passphrase only the token's keys are in reach",
    ),
    PKCS11_TOKEN_LABEL: text.describe('the token, by label (this or `PKCS11_SLOT`)'),
    PKCS11_SLOT: z.coerce
      .number()
      .int()
      .min(0)
      .max(2 ** 48)
      .optional()
      .describe('or: the token, by slot number'),
    PKCS11_PIN: z
      .string()
      .optional()
      .meta({
        description:
          "the token user's PIN (this or `PKCS11_PIN_FILE`); a refused PIN is never tried again until restart " +
          '(tokens lock)',
        secret: true,
      }),
    PKCS11_PIN_FILE: text.describe("or: a file holding the token user's PIN"),
    PKCS11_SESSIONS: z.coerce
      .number({ error: 'must be an integer between 1 and 256' })
      .int({ error: 'must be an integer between 1 and 256' })
      .min(1, { error: 'must be at least 1' })
      .max(256, { error: 'must be at most 256' })
      .default(8)
      .describe('sessions kept open on the token: how many signatures run at once'),
  },
  configure(e, ctx) {
    const module = e.PKCS11_MODULE as string | undefined;
    const label = e.PKCS11_TOKEN_LABEL as string | undefined;
    const slot = e.PKCS11_SLOT as number | undefined;
    const pinText = e.PKCS11_PIN as string | undefined;
    const pinFile = e.PKCS11_PIN_FILE as string | undefined;
    if (module === undefined) {
      if ([label, slot, pinText, pinFile].some((v) => v !== undefined))
        ctx.problem(
          'PKCS11_TOKEN_LABEL, PKCS11_SLOT and PKCS11_PIN need PKCS11_MODULE (the PKCS#11 library path)',
        );
      return undefined;
    }
    if ((label === undefined) === (slot === undefined))
      ctx.problem('PKCS11_MODULE needs exactly one of PKCS11_TOKEN_LABEL and PKCS11_SLOT');
    let pin: string | undefined;
    if (pinText !== undefined && pinFile !== undefined)
      ctx.problem('PKCS11_PIN and PKCS11_PIN_FILE are both set: choose one');
    else if (pinFile !== undefined) pin = ctx.readSecretFile(pinFile, 'PKCS11_PIN_FILE');
    else if (pinText === undefined || pinText === '')
      ctx.problem('PKCS11_MODULE needs PKCS11_PIN or PKCS11_PIN_FILE');
    else pin = pinText;
    return {
      module,
      ...(label !== undefined ? { tokenLabel: label } : {}),
      ...(slot !== undefined ? { slot } : {}),
      pin: pin ?? '',
      sessions: e.PKCS11_SESSIONS as number,
      dir: ctx.keysDir,
    };
  },
  open: (options) => openPkcs11Backend(options),
};
