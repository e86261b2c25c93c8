// Intents (POST /wallet/v1/transfers, …): where each instrument's registry is, how long a prepared intent stays
// valid, and how holdings are picked.
import { z } from 'zod';
import { intIn, list } from './env.ts';
import { section } from './section.ts';

const DECIMAL = /^\d{1,28}(\.\d{1,10})?$/;

/** `admin=url` pairs; a party id holds neither `=` nor `,`. */
const registryUrls = list.transform((pairs, ctx) => {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const at = p.indexOf('=');
    const admin = p.slice(0, at).trim();
    const base = p.slice(at + 1).trim();
    let ok = at > 0 && base.length > 0;
    try {
      ok &&= ['http:', 'https:'].includes(new URL(base).protocol);
    } catch {
      ok = false;
    }
    if (!ok) {
      ctx.addIssue({ code: 'custom', message: `"${p}" is not ADMIN_PARTY=http(s)://registry-base-url` });
      return z.NEVER;
    }
    out[admin] = base.replace(/\/+$/, '');
  }
  return out;
});

export const intents = section({
  summary: 'Intents: the token registries Quill asks, and how a transfer is prepared.',
  vars: {
    TOKEN_REGISTRY_URLS: registryUrls.describe(
      'comma-separated `ADMIN_PARTY=URL`: the base URL of the registry of the instruments each admin party ' +
        'administers (clients append `/registry/transfer-instruction/v1/…`); the embedded sandbox adds its ' +
        'own; an instrument whose admin is not listed is refused (`UNKNOWN_REGISTRY`)',
    ),
    INTENT_TTL_SECONDS: intIn(5, 7 * 86_400, 86_400).describe(
      "a prepared intent's max record time is this far ahead (or its executeBefore, if earlier); one that " +
        'expires before it is signed (waiting for approvals) is prepared again only through `…/reprepare`',
    ),
    INTENT_MAX_INPUTS: intIn(1, 500, 100).describe('at most this many holdings are spent by one transfer'),
    INTENT_MERGE_DUST_BELOW: z
      .string()
      .trim()
      .optional()
      .refine((s) => s === undefined || s === '' || DECIMAL.test(s), {
        error: 'must be a decimal amount (e.g. 1.5)',
      })
      .describe(
        'when set, holdings of the instrument below this amount are added as extra inputs to every transfer ' +
          '(up to INTENT_MAX_INPUTS) and come back merged into the change; unset = no merging',
      ),
  },
  outputs: { intents: true },
  build: (e) => ({
    intents: {
      registries: e.TOKEN_REGISTRY_URLS,
      ttlSeconds: e.INTENT_TTL_SECONDS,
      maxInputs: e.INTENT_MAX_INPUTS,
      ...(e.INTENT_MERGE_DUST_BELOW ? { mergeDustBelow: e.INTENT_MERGE_DUST_BELOW } : {}),
    },
  }),
});
