// Signed checkpoints of the audit chain: the chain's entry count and head hash, signed by the audit key and kept
// outside Redis (docs/audit.md). Whoever can write to Redis can cut entries off the end and move the head back, or
// rewrite an entry and re-link every later one: the chain then checks out, but it no longer has the head a
// checkpoint signed at its count. A checkpoint proves nothing about entries after its count.
import { z } from 'zod';
import { FINGERPRINT_PATTERN, type PublicKeyView, verifyStatement } from '../signing/index.ts';
import type { ChainEntry } from './chain.ts';

/** Prepended to the canonical JSON before signing: the signature is over this statement and nothing else. */
export const CHECKPOINT_DOMAIN = 'quill/audit-checkpoint/v1\n';

/** A checkpoint as one line of the checkpoint file (and the webhook's body). */
export const Checkpoint = z
  .object({
    v: z.literal(1),
    /** Entries in the chain when it was taken. */
    count: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    /** The `chainHash` of entry #count (the head then). */
    head: z.string().regex(/^[0-9a-f]{64}$/),
    /** The stream id of entry #count. */
    lastId: z.string().regex(/^\d{1,20}-\d{1,20}$/),
    at: z.iso.datetime(),
    /** The audit key's fingerprint. */
    key: z.string().regex(FINGERPRINT_PATTERN),
    /** Standard base64: Ed25519 64 bytes, ECDSA low-S DER, over `checkpointMessage`. */
    signature: z.base64().min(1).max(200),
  })
  .strict();
export type Checkpoint = z.infer<typeof Checkpoint>;
export type CheckpointBody = Omit<Checkpoint, 'signature'>;

/** The bytes signed: the domain, then the fields as canonical JSON (sorted names, no spaces). */
export function checkpointMessage(c: CheckpointBody): Uint8Array {
  const canonical = JSON.stringify({
    at: c.at,
    count: c.count,
    head: c.head,
    key: c.key,
    lastId: c.lastId,
    v: c.v,
  });
  return Buffer.from(CHECKPOINT_DOMAIN + canonical, 'utf8');
}

/** One checkpoint as read from a file, with its line number. */
export interface LocatedCheckpoint {
  line: number;
  checkpoint: Checkpoint;
}

/** A checkpoint file's lines, or the first line that is not a checkpoint (1-based). */
export function parseCheckpoints(
  text: string,
): { ok: true; checkpoints: LocatedCheckpoint[] } | { ok: false; line: number; problem: string } {
  const checkpoints: LocatedCheckpoint[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return { ok: false, line: i + 1, problem: 'not a JSON line' };
    }
    const parsed = Checkpoint.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
      return { ok: false, line: i + 1, problem: `not an audit checkpoint (${where}${issue?.message})` };
    }
    checkpoints.push({ line: i + 1, checkpoint: parsed.data });
  }
  return { ok: true, checkpoints };
}

export type CheckpointVerdict =
  | { ok: true; checked: number; newest?: Checkpoint }
  | {
      ok: false;
      problem: 'unknown-key' | 'bad-signature' | 'deleted' | 'rewritten';
      line: number;
      reason: string;
    };

/**
 * Checks each checkpoint's signature with the key it names (`keyOf`; undefined = unknown, said by `unknownKey`),
 * then the chain against them: it must have at least `count` entries, and entry #count must have the signed head.
 * A rewrite is named at the oldest checkpoint it contradicts, a cut-off tail at the checkpoint with the largest
 * count. The chain's own links are `verifyAuditChain`'s to check, before this.
 */
export function checkCheckpoints(
  entries: readonly ChainEntry[],
  checkpoints: readonly LocatedCheckpoint[],
  keyOf: (fingerprint: string) => PublicKeyView | undefined,
  where: { file: string; unknownKey: string },
): CheckpointVerdict {
  for (const { line, checkpoint: c } of checkpoints) {
    const at = `${where.file}:${line} (of ${c.at})`;
    const key = keyOf(c.key);
    if (!key)
      return {
        ok: false,
        problem: 'unknown-key',
        line,
        reason: `the checkpoint at ${at} is signed by key ${c.key}, ${where.unknownKey}`,
      };
    const { signature, ...body } = c;
    if (!verifyStatement(key, checkpointMessage(body), Buffer.from(signature, 'base64')))
      return {
        ok: false,
        problem: 'bad-signature',
        line,
        reason: `the checkpoint at ${at} has a bad signature: key ${c.key} did not sign it (forged or edited)`,
      };
  }
  const n = entries.length;
  for (const { line, checkpoint: c } of checkpoints) {
    if (c.count > n) continue;
    const actual = entries[c.count - 1]?.fields.find(([k]) => k === 'chainHash')?.[1] ?? '(none)';
    if (actual !== c.head)
      return {
        ok: false,
        problem: 'rewritten',
        line,
        reason:
          `the chain up to entry ${c.count} was rewritten (checkpoint of ${c.at} has head ${c.head}, ` +
          `the chain has ${actual} at entry ${c.count})`,
      };
  }
  const longest = checkpoints.reduce<LocatedCheckpoint | undefined>(
    (best, x) => (best && best.checkpoint.count >= x.checkpoint.count ? best : x),
    undefined,
  );
  if (longest && longest.checkpoint.count > n)
    return {
      ok: false,
      problem: 'deleted',
      line: longest.line,
      reason:
        `entries after ${n} were deleted (checkpoint of ${longest.checkpoint.at} has count ` +
        `${longest.checkpoint.count}, the chain has ${n})`,
    };
  const newest = checkpoints.at(-1)?.checkpoint;
  return { ok: true, checked: checkpoints.length, ...(newest ? { newest } : {}) };
}
