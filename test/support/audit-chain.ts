// A small audit chain to check and tamper with: shared by the chain's own tests and the CLI's.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { auditDigest, auditLink } from '../../src/audit/chain.ts';
import {
  AuditCheckpointer,
  AuditLog,
  type ChainEntry,
  type Checkpoint,
  GENESIS,
  parseCheckpoints,
} from '../../src/audit/index.ts';
import { redisKeys } from '../../src/redis/index.ts';
import type { RawSigner } from '../../src/signing/index.ts';
import type { SubmissionStore } from '../../src/submissions/index.ts';
import { freshStore, payload, record } from './records.ts';
import { tempDir } from './tmp.ts';

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

/** The stream's entries as stored. */
export async function streamEntries(redis: Redis, key: string): Promise<ChainEntry[]> {
  const rows = await redis.xrange(key, '-', '+');
  return rows.map(([id, f]) => ({
    id,
    fields: Array.from({ length: f.length / 2 }, (_, i) => [f[2 * i], f[2 * i + 1]] as [string, string]),
  }));
}

/**
 * What an insider who can write to Redis does after editing or deleting entries: recomputes every entry's
 * `chainDigest`, `chainPrev` and `chainHash` from the first on, so that every link checks out again.
 */
export function relink(entries: readonly ChainEntry[]): ChainEntry[] {
  let prev = GENESIS;
  return entries.map((e) => {
    const body = e.fields.filter(([k]) => k !== 'chainPrev' && k !== 'chainHash');
    const at = body.findIndex(([k]) => k === 'chainDigest');
    const own = body.slice(0, at);
    const script = body.slice(at + 1);
    const digest = auditDigest(own);
    const hash = auditLink(prev, digest, script);
    const fields: [string, string][] = [
      ...own,
      ['chainDigest', digest],
      ...script,
      ['chainPrev', prev],
      ['chainHash', hash],
    ];
    prev = hash;
    return { id: e.id, fields };
  });
}

/** Replaces the stream with `entries` (their own ids) and points the head at the last: the chain "checks out". */
export async function replaceChain(
  redis: Redis,
  prefix: string,
  entries: readonly ChainEntry[],
): Promise<void> {
  const { audit: key, auditHead } = redisKeys(prefix);
  await redis.del(key);
  for (const e of entries) await redis.xadd(key, e.id, ...e.fields.flat());
  const head = entries.at(-1)?.fields.find(([k]) => k === 'chainHash')?.[1];
  if (head) await redis.set(auditHead, head);
  else await redis.del(auditHead);
}

/** An entry with one field of its own changed (the actor, else its first field). */
export function edited(e: ChainEntry, value = 'mallory'): ChainEntry {
  const name = e.fields.some(([k]) => k === 'actor') ? 'actor' : (e.fields[0]?.[0] as string);
  return { ...e, fields: e.fields.map(([k, v]) => [k, k === name ? `${v}-${value}` : v]) };
}

/** A six-entry chain and a checkpointer of it, signing with `signer`'s key `key` into a fresh file. */
export async function anchoredChain(redis: Redis, signer: RawSigner, key: string) {
  const { store } = await sixEntryChain(redis);
  const file = join(tempDir('quill-cp-'), 'checkpoints.jsonl');
  const checkpointer = new AuditCheckpointer({ audit: auditOf(store), signer, key, file, log: () => {} });
  return { store, prefix: store.prefix, file, checkpointer };
}

/** The checkpoints in a checkpoint file (none when it is missing). */
export async function checkpointsIn(file: string): Promise<Checkpoint[]> {
  const parsed = parseCheckpoints(await readFile(file, 'utf8').catch(() => ''));
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.checkpoints.map((c) => c.checkpoint);
}
