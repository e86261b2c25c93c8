// The tamper-evident audit chain (issue 15, item 5): each entry carries the SHA-256 of the previous one, computed
// in Lua in the step of the change it records and checked here by an independent computation (node:crypto).
// Editing, deleting or reordering entries — in Redis or in an exported file — is detected and named.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fc, test as fcTest } from '@fast-check/vitest';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { auditFields, auditHash } from '../../src/audit/chain.ts';
import { AuditLog, type ChainEntry, GENESIS, verifyAuditChain } from '../../src/audit/index.ts';
import { PolicyStore } from '../../src/policy/index.ts';
import type { SubmissionStore } from '../../src/submissions/index.ts';
import { runCli } from '../signing/run-cli.ts';
import { freshStore, payload, record, testRedis } from '../submissions/records.ts';
import { tempDir } from '../support/tmp.ts';

/** The audit chain of a store's deployment. */
const auditOf = (s: { redis: import('ioredis').Redis; prefix: string }) => new AuditLog(s.redis, s.prefix);

const redis = testRedis();
afterAll(() => redis.quit());

const audit = (id: string, n: number) => ({
  at: new Date(1_800_000_000_000 + n).toISOString(),
  actor: `tok-${n}`,
  party: 'alice::1220aa',
  keyFingerprint: `1220${'ab'.repeat(32)}`,
  hash: 'cd'.repeat(32),
  commandId: `cmd-${id}`,
  submission: id,
});

/** Six entries of three kinds: signatures written by create, and entries appended alone. */
async function chain(): Promise<{ store: SubmissionStore; key: string }> {
  const store = freshStore(redis);
  for (let n = 0; n < 4; n++) {
    const r = record();
    await store.create(r, payload, undefined, audit(r.id, n));
  }
  await auditOf(store).append({
    kind: 'key.generate',
    at: new Date().toISOString(),
    actor: 'ops',
    keyFingerprint: 'x',
  });
  await auditOf(store).append({
    kind: 'key.disable',
    at: new Date().toISOString(),
    actor: 'ops',
    keyFingerprint: 'x',
  });
  return { store, key: `${store.prefix}audit` };
}

/** Rewrites the stream with the same ids and `edit` applied to the entries' contents. */
async function rewrite(key: string, edit: (entries: ChainEntry[]) => ChainEntry[]): Promise<void> {
  const rows = await redis.xrange(key, '-', '+');
  const entries = rows.map(([id, f]) => ({
    id,
    fields: Array.from({ length: f.length / 2 }, (_, i) => [f[2 * i], f[2 * i + 1]] as [string, string]),
  }));
  const edited = edit(entries);
  await redis.del(key);
  for (const [i, e] of edited.entries()) await redis.xadd(key, rows[i]?.[0] ?? '*', ...e.fields.flat());
}

const verdictOf = async (store: SubmissionStore) =>
  verifyAuditChain(await auditOf(store).entries('0-0', 1000), await auditOf(store).head());

describe('the audit chain in Redis', () => {
  it('links every entry; the Lua SHA-256 agrees with node:crypto', async () => {
    const { store } = await chain();
    const entries = await auditOf(store).entries();
    expect(entries).toHaveLength(6);
    expect(entries[0]?.fields.find(([k]) => k === 'chainPrev')?.[1]).toBe(GENESIS);
    expect(await verdictOf(store)).toMatchObject({ ok: true, count: 6 });
  });

  fcTest.prop(
    [
      fc.array(
        fc.tuple(fc.string({ minLength: 1, maxLength: 20 }), fc.string({ maxLength: 300, unit: 'binary' })),
        { minLength: 1, maxLength: 6 },
      ),
    ],
    {
      numRuns: 40,
    },
  )('any fields, any bytes: what Lua hashed is what node:crypto recomputes', async (fields) => {
    const store = freshStore(redis);
    await auditOf(store).append(Object.fromEntries(fields.map(([k, v]) => [`f-${k}`, v])));
    await auditOf(store).append({ kind: 'second', at: 'x' });
    expect(await verdictOf(store)).toMatchObject({ ok: true, count: 2 });
  });

  it('an edited entry is named', async () => {
    const { store, key } = await chain();
    await rewrite(key, (es) =>
      es.map((e, i) =>
        i === 2 ? { ...e, fields: e.fields.map(([k, v]) => [k, k === 'actor' ? 'mallory' : v]) } : e,
      ),
    );
    expect(await verdictOf(store)).toMatchObject({
      ok: false,
      index: 2,
      reason: expect.stringContaining('edited'),
    });
  });

  it('a deleted entry is named (at its successor), and so is one cut off the end', async () => {
    const { store, key } = await chain();
    const ids = (await auditOf(store).entries()).map((e) => e.id);
    await redis.xdel(key, ids[3] as string);
    expect(await verdictOf(store)).toMatchObject({
      ok: false,
      index: 3,
      id: ids[4],
      reason: expect.stringContaining('deleted'),
    });
    const second = await chain();
    const last = (await auditOf(second.store).entries()).at(-1)?.id as string;
    await redis.xdel(second.key, last);
    expect(await verdictOf(second.store)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('end'),
    });
  });

  it('reordered entries are named', async () => {
    const { store, key } = await chain();
    await rewrite(key, (es) => [es[0], es[2], es[1], ...es.slice(3)] as ChainEntry[]);
    expect(await verdictOf(store)).toMatchObject({ ok: false, index: 1 });
  });
  it("covers the fields only the script knows: a signature's outcome and a policy's version", async () => {
    const store = freshStore(redis);
    const first = record();
    await store.create(first, payload, undefined, audit(first.id, 0));
    // The same command id again with another hash: logged with stored=false and the holder's id (3 blocks in Lua).
    const loser = record({ commandId: first.commandId });
    expect((await store.create(loser, payload, undefined, audit(loser.id, 1))).created).toBe(false);
    await new PolicyStore(redis, store.prefix).put({ rules: [] } as never, 'ops');
    const entries = await auditOf(store).entries();
    const names = entries.map((e) => e.fields.map(([k]) => k));
    expect(names[1]?.slice(-6)).toEqual([
      'submission',
      'chainDigest',
      'stored',
      'existingSubmission',
      'chainPrev',
      'chainHash',
    ]);
    expect(names[2]?.slice(-4)).toEqual(['chainDigest', 'version', 'chainPrev', 'chainHash']);
    expect(await verdictOf(store)).toMatchObject({ ok: true, count: 3 });
    // Those fields are outside the digest, inside the link: changing one breaks the entry's own hash.
    const key = `${store.prefix}audit`;
    for (const [name, value] of [
      ['stored', 'true'],
      ['version', '7'],
      ['chainDigest', 'ab'.repeat(32)],
    ] as const) {
      const copy = freshStore(redis);
      const rows = await redis.xrange(key, '-', '+');
      for (const [id, f] of rows) {
        const i = f.indexOf(name);
        await redis.xadd(`${copy.prefix}audit`, id, ...(i >= 0 ? f.with(i + 1, value) : f));
      }
      await redis.set(`${copy.prefix}audit:head`, (await auditOf(store).head()) as string);
      expect(await verdictOf(copy), name).toMatchObject({
        ok: false,
        reason: expect.stringContaining('edited'),
      });
    }
  });

  it('entries written before chainDigest (everything hashed in Lua) still verify, before and after new ones', async () => {
    const store = freshStore(redis);
    const key = `${store.prefix}audit`;
    let head = GENESIS;
    for (const n of [0, 1]) {
      const fields: [string, string][] = [
        ['kind', 'key.generate'],
        ['at', `2026-01-0${n + 1}T00:00:00.000Z`],
        ['actor', 'ops'],
      ];
      const hash = auditHash(head, fields);
      await redis.xadd(key, '*', ...fields.flat(), 'chainPrev', head, 'chainHash', hash);
      head = hash;
    }
    await redis.set(`${key}:head`, head);
    await auditOf(store).append({ kind: 'key.disable', at: new Date().toISOString(), actor: 'ops' });
    expect(await verdictOf(store)).toMatchObject({ ok: true, count: 3 });
  });

  it('the chain fields are not the caller’s to set', () => {
    expect(() => auditFields({ chainHash: 'x' })).toThrow(/reserved/);
    expect(auditFields({ a: '1' }).slice(0, 3)).toEqual(['a', '1', 'chainDigest']);
  });
});

describe('quill audit export and verify', () => {
  it('exports JSON lines that verify; an edited, deleted or reordered line is named, exit 1', async () => {
    const { store } = await chain();
    const env = { REDIS_URL: inject('redisUrl'), REDIS_PREFIX: store.prefix.slice(0, -1) };
    expect(await runCli(['audit', 'verify'], env)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('ok: 6 entries'),
    });
    const file = join(tempDir('quill-audit-'), 'audit.jsonl');
    expect((await runCli(['audit', 'export', '--out', file], env)).code).toBe(0);
    expect(await runCli(['audit', 'verify', file], {})).toMatchObject({ code: 0 });
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    const cases: [string, string[]][] = [
      ['edited', lines.map((l, i) => (i === 4 ? l.replace('"ops"', '"eve"') : l))],
      ['deleted', lines.filter((_, i) => i !== 1)],
      ['reordered', [lines[0], lines[3], lines[1], lines[2], lines[4], lines[5]] as string[]],
    ];
    for (const [what, tampered] of cases) {
      const bad = join(tempDir('quill-audit-'), `${what}.jsonl`);
      await writeFile(bad, `${tampered.join('\n')}\n`);
      const r = await runCli(['audit', 'verify', bad], {});
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toMatch(/audit chain broken at entry \d+ of \d+/);
    }
    const garbage = join(tempDir('quill-audit-'), 'garbage.jsonl');
    await writeFile(garbage, 'not json\n');
    expect((await runCli(['audit', 'verify', garbage], {})).code).toBe(2);
    expect((await runCli(['audit', 'verify', '/nonexistent/file'], {})).code).toBe(2);
  });
});
