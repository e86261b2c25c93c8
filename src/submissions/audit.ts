// The tamper-evident audit chain: every signature, approval decision, policy change, key generation and key
// disable is an entry of the `<prefix>audit` stream carrying `chainPrev` (the hash of the entry before it) and
// `chainHash` (SHA-256 of `chainPrev` and its own fields), appended in the Lua step of the change it records (scripts.ts
// `auditAppend`). Editing, deleting or reordering any entry breaks a link that `verifyAuditChain` names.
import { createHash } from 'node:crypto';

export const GENESIS = '0'.repeat(64);

/** One entry as stored: its stream id and its fields in order (`chainPrev` and `chainHash` last). */
export interface ChainEntry {
  id: string;
  fields: [string, string][];
}

/** What the hash covers: the previous hash, then each field as `<bytes>:<name><bytes>:<value>` (unambiguous). */
export function auditCanonical(prev: string, fields: readonly (readonly [string, string])[]): string {
  const parts = [prev];
  for (const [k, v] of fields) parts.push(`${Buffer.byteLength(k)}:${k}${Buffer.byteLength(v)}:${v}`);
  return parts.join('\n');
}

export function auditHash(prev: string, fields: readonly (readonly [string, string])[]): string {
  return createHash('sha256').update(auditCanonical(prev, fields), 'utf8').digest('hex');
}

export type ChainVerdict =
  | { ok: true; count: number; head: string }
  | { ok: false; count: number; index: number; id: string; reason: string };

/**
 * Checks every link in order: each entry's `chainPrev` is the hash of the one before (the genesis for the first) and
 * its `chainHash` is recomputed from `prev` and its fields. `head`, when given (Redis keeps it), must be the last hash:
 * otherwise entries were cut off the end. Names the first broken link (0-based `index`).
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
    if (auditHash(storedPrev, body) !== storedHash)
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
