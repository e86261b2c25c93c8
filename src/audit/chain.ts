// The tamper-evident audit chain: every signature, approval decision, policy change, key generation and key
// disable is an entry of the `<prefix>audit` stream carrying `chainPrev` (the hash of the entry before it) and
// `chainHash`, appended in the Lua step of the change it records (src/redis/lua/includes/audit-append.lua). Editing, deleting or
// reordering any entry breaks a link that `verifyAuditChain` names.
//
// An entry's fields, in order: the caller's own, `chainDigest` (SHA-256 of those, computed here: Redis's Lua
// would take ~70 µs per 64-byte block of them), the fields only the script knows (a signature's `stored`, a
// policy's `version`), then `chainPrev` and `chainHash` = SHA-256(prev ‖ digest ‖ the script's fields), two
// blocks in Lua for a typical entry. Entries written before `chainDigest` existed hash everything in Lua
// (`auditHash`) and still verify.
import { createHash } from 'node:crypto';

export const GENESIS = '0'.repeat(64);

/** One entry as stored: its stream id and its fields in order (`chainPrev` and `chainHash` last). */
export interface ChainEntry {
  id: string;
  fields: [string, string][];
}

type Fields = readonly (readonly [string, string])[];

/** Fields as hashed: each as `<bytes>:<name><bytes>:<value>` (unambiguous), joined by newlines. */
function fieldsCanonical(fields: Fields): string {
  return fields.map(([k, v]) => `${Buffer.byteLength(k)}:${k}${Buffer.byteLength(v)}:${v}`).join('\n');
}

const RESERVED = new Set(['chainDigest', 'chainPrev', 'chainHash']);

/** The caller's fields of an entry as the audit scripts take them: name/value items, then `chainDigest`. */
export function auditFields<T extends { [K in keyof T]: string }>(entry: T): string[] {
  const pairs: [string, string][] = Object.entries(entry);
  const clash = pairs.find(([k]) => RESERVED.has(k));
  if (clash) throw new Error(`audit entry field ${clash[0]} is reserved for the chain`);
  return [...pairs.flat(), 'chainDigest', auditDigest(pairs)];
}

/** SHA-256 (hex) of the caller's fields of an entry. */
export function auditDigest(fields: Fields): string {
  return createHash('sha256').update(fieldsCanonical(fields), 'utf8').digest('hex');
}

/** An entry's `chainHash`: SHA-256(prev ‖ digest ‖ the script's fields), the two hashes as their 32 bytes. */
export function auditLink(prev: string, digest: string, scriptFields: Fields): string {
  return createHash('sha256')
    .update(Buffer.from(prev, 'hex'))
    .update(Buffer.from(digest, 'hex'))
    .update(fieldsCanonical(scriptFields), 'utf8')
    .digest('hex');
}

/** Entries without `chainDigest`: the previous hash, then each field, as one canonical text hashed in Lua. */
export function auditCanonical(prev: string, fields: Fields): string {
  return fields.length === 0 ? prev : `${prev}\n${fieldsCanonical(fields)}`;
}

export function auditHash(prev: string, fields: Fields): string {
  return createHash('sha256').update(auditCanonical(prev, fields), 'utf8').digest('hex');
}

/** Recomputes an entry's `chainHash` from `prev` and its fields; undefined when its own digest does not match. */
function recompute(prev: string, body: Fields): string | undefined {
  const at = body.findIndex(([k]) => k === 'chainDigest');
  if (at < 0) return auditHash(prev, body);
  const digest = body[at]?.[1] ?? '';
  if (!/^[0-9a-f]{64}$/.test(digest) || auditDigest(body.slice(0, at)) !== digest) return undefined;
  return auditLink(prev, digest, body.slice(at + 1));
}

export type ChainVerdict =
  | { ok: true; count: number; head: string }
  | { ok: false; count: number; index: number; id: string; reason: string };

/**
 * Checks every link in order: each entry's `chainPrev` is the hash of the one before (the genesis for the first),
 * and its `chainHash` (and `chainDigest`, when it has one) is recomputed from `prev` and its fields. `head`, when
 * given (Redis keeps it), must be the last hash: otherwise entries were cut off the end. Names the first broken
 * link (0-based `index`).
 */
export function verifyAuditChain(entries: readonly ChainEntry[], head?: string): ChainVerdict {
  let prev = GENESIS;
  for (const [index, e] of entries.entries()) {
    const body = e.fields.filter(([k]) => k !== 'chainPrev' && k !== 'chainHash');
    const storedPrev = e.fields.find(([k]) => k === 'chainPrev')?.[1];
    const storedHash = e.fields.find(([k]) => k === 'chainHash')?.[1];
    const broken = (reason: string): ChainVerdict => ({
      ok: false,
      count: entries.length,
      index,
      id: e.id,
      reason,
    });
    if (storedPrev === undefined || storedHash === undefined)
      return broken('the entry has no chainPrev/chainHash fields');
    if (storedPrev !== prev)
      return broken(
        index === 0
          ? 'the first entry does not start the chain (entries before it were deleted)'
          : 'prev is not the hash of the entry before it (an entry was deleted, inserted or moved)',
      );
    if (recompute(storedPrev, body) !== storedHash)
      return broken('the entry was edited (its hash does not match)');
    prev = storedHash;
  }
  if (head !== undefined && head !== prev) {
    return {
      ok: false,
      count: entries.length,
      index: entries.length,
      id: '(end)',
      reason: 'the chain head does not match the last entry (entries were deleted from the end)',
    };
  }
  return { ok: true, count: entries.length, head: prev };
}
