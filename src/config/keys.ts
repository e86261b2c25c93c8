// Signing keys: KEYS_DIR, the default backend, and each key backend's own variables (src/signing/backends.ts: a
// backend declares its variables and how they configure it; this section composes them).

import { z } from 'zod';
import { type ConfigureContext, KEY_BACKEND_TYPES } from '../signing/index.ts';
import { readSecretFile } from './env.ts';
import { section } from './section.ts';

const backendVars: z.ZodRawShape = Object.assign({}, ...KEY_BACKEND_TYPES.map((t) => t.vars));
const NAMES = KEY_BACKEND_TYPES.map((t) => t.name);

export const keys = section({
  summary:
    `Signing keys: KEYS_DIR, the default backend, and each backend's settings (${NAMES.join(', ')}; see ` +
    '"Keys in an HSM" in docs/operations.md).',
  vars: {
    KEYS_DIR: z.string().trim().min(1).default('keys').describe('key store folder (and the party registry)'),
    KEYS_DEFAULT_BACKEND: z
      .string()
      .trim()
      .optional()
      .describe(
        `where \`POST /wallet/v1/keys\` and \`quill keys generate\` make a key when the request names no backend ` +
          `(${NAMES.join(' or ')}); unset = \`file\` (the first configured one when \`file\` is not)`,
      ),
    ...backendVars,
  },
  outputs: { keysDir: true, keyBackends: true, defaultKeyBackend: true },
  build: (e, problem) => {
    const ctx: ConfigureContext = {
      keysDir: e.KEYS_DIR,
      problem,
      readSecretFile: (path, variable) => readSecretFile(path, variable, problem),
    };
    /** The options of each configured backend, by name. */
    const keyBackends: Record<string, unknown> = {};
    for (const type of KEY_BACKEND_TYPES) {
      const options = type.configure(e, ctx);
      if (options !== undefined) keyBackends[type.name] = options;
    }
    const wanted = e.KEYS_DEFAULT_BACKEND || undefined;
    if (wanted !== undefined) {
      const type = KEY_BACKEND_TYPES.find((t) => t.name === wanted);
      if (!type) problem(`KEYS_DEFAULT_BACKEND: must be one of ${NAMES.join(', ')}`);
      else if (!(wanted in keyBackends))
        problem(`KEYS_DEFAULT_BACKEND=${wanted} needs its settings: ${type.setUp}`);
    }
    return {
      keysDir: e.KEYS_DIR,
      keyBackends: keyBackends as Readonly<Record<string, unknown>>,
      ...(wanted !== undefined ? { defaultKeyBackend: wanted } : {}),
    };
  },
});
