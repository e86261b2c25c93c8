// A small audit chain to check and tamper with: shared by the chain's own tests and the CLI's.
import type { Redis } from 'ioredis';
import { AuditLog } from '../../src/audit/index.ts';
import type { SubmissionStore } from '../../src/submissions/index.ts';
import { freshStore, payload, record } from './records.ts';

/** The audit chain of a store's deployment. */
export const auditOf = (s: { redis: Redis; prefix: string }) => new AuditLog(s.redis, s.prefix);

/** The audit entry of the n-th signature. */
export const signatureAudit = (id: string, n: number) => ({
  at: new Date(1_800_000_000_000 + n).toISOString(),
  actor: `tok-${n}`,
  party: 'alice::1220aa',
  keyFingerprint: `1220${'ab'.repeat(32)}`,
  hash: 'cd'.repeat(32),
  commandId: `cmd-${id}`,
  submission: id,
});

/** Six entries of three kinds: signatures written by create, and entries appended alone. */
export async function sixEntryChain(redis: Redis): Promise<{ store: SubmissionStore; key: string }> {
  const store = freshStore(redis);
  for (let n = 0; n < 4; n++) {
    const r = record();
    await store.create(r, payload, undefined, signatureAudit(r.id, n));
  }
  for (const kind of ['key.generate', 'key.disable'])
    await auditOf(store).append({ kind, at: new Date().toISOString(), actor: 'ops', keyFingerprint: 'x' });
  return { store, key: `${store.prefix}audit` };
}
