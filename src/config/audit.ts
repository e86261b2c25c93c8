// Signed checkpoints of the audit chain, kept outside Redis (src/audit/checkpointer.ts, docs/audit.md): the audit key
// that signs them, the file they are appended to, a webhook they are also sent to, and how often they are taken.
import { z } from 'zod';
import { FINGERPRINT_PATTERN } from '../signing/index.ts';
import { intIn, optionalText, url } from './env.ts';
import { section } from './section.ts';

export const audit = section({
  summary:
    "Signed checkpoints of the audit chain, kept outside Redis (the worker holding the leader lease; `quill audit verify`'s default file). Off while AUDIT_KEY is unset.",
  vars: {
    AUDIT_KEY: z
      .string()
      .trim()
      .toLowerCase()
      .regex(FINGERPRINT_PATTERN, { error: 'must be a key fingerprint (1220 followed by 64 hex digits)' })
      .optional()
      .describe(
        'fingerprint of the key of the key ring (a file or PKCS#11 key) that signs audit checkpoints: active, and ' +
          "no party's signing key; unset = no checkpoints (the demo makes one)",
      ),
    AUDIT_CHECKPOINT_FILE: optionalText.describe(
      'the file of JSON lines checkpoints are appended to (created with mode 0600, fsync\u2019d, never rewritten); ' +
        'needed with AUDIT_KEY; `quill audit verify` reads it when no `--checkpoints` is given',
    ),
    AUDIT_CHECKPOINT_WEBHOOK_URL: url(['http:', 'https:'])
      .optional()
      .describe(
        'also POST each checkpoint (JSON) here, retried with backoff until a 2xx; best effort: the file never waits for it',
      ),
    AUDIT_CHECKPOINT_SECONDS: intIn(1, 86_400, 60).describe(
      'how often a checkpoint is taken, when the chain moved since the last one',
    ),
  },
  outputs: { auditCheckpoints: true },
  build: (e, problem) => {
    if (e.AUDIT_KEY && !e.AUDIT_CHECKPOINT_FILE)
      problem('AUDIT_KEY needs AUDIT_CHECKPOINT_FILE (the file its checkpoints are appended to)');
    if (!e.AUDIT_KEY && e.AUDIT_CHECKPOINT_WEBHOOK_URL)
      problem('AUDIT_CHECKPOINT_WEBHOOK_URL needs AUDIT_KEY (nothing signs checkpoints without it)');
    return {
      auditCheckpoints: {
        /** The audit key's fingerprint; undefined = no checkpoints are taken. */
        key: e.AUDIT_KEY,
        file: e.AUDIT_CHECKPOINT_FILE,
        webhookUrl: e.AUDIT_CHECKPOINT_WEBHOOK_URL,
        everyMs: e.AUDIT_CHECKPOINT_SECONDS * 1000,
      },
    };
  },
});
