// The tamper-evident audit chain (issue 15, item 5): each entry carries the SHA-256 of the previous one, computed
// in Lua in the step of the change it records and checked here by an independent computation (node:crypto).
// Editing, deleting or reordering entries — in Redis or in an exported file — is detected and named.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fc, test as fcTest } from '@fast-check/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { auditFields, auditHash } from '../../../src/audit/chain.ts';
import { type ChainEntry, GENESIS, verifyAuditChain } from '../../../src/audit/index.ts';
import { PolicyStore } from '../../../src/policy/index.ts';
import type { SubmissionStore } from '../../../src/submissions/index.ts';
import { signatureAudit as audit, auditOf, sixEntryChain } from '../../support/audit-chain.ts';
import { freshStore, payload, record, testRedis } from '../../support/records.ts';

const redis = testRedis();
afterAll(() => redis.quit());
const chain = () => sixEntryChain(redis);

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

  // The include's sha256 itself, on every length around the block and padding boundaries (55/56, 63/64, 119/120)
  // and beyond, against node:crypto: the chain's messages (64 bytes and the script's fields) only reach a few.
  const SHA = `${readFileSync(new URL('../../../src/redis/lua/includes/audit-append.lua', import.meta.url), 'utf8')}
return sha256(ARGV[1])`;
  it('the Lua SHA-256 is SHA-256 on every length from 0 to 300 bytes', async () => {
    for (let n = 0; n <= 300; n++) {
      const msg = Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + n) % 256));
      const lua = await redis.eval(SHA, 0, msg);
      expect(lua, `${n} bytes`).toBe(createHash('sha256').update(msg).digest('hex'));
    }
  });
  fcTest.prop([fc.uint8Array({ maxLength: 1000 })], { numRuns: 60 })(
    'the Lua SHA-256 agrees with node:crypto on any bytes',
    async (bytes) => {
      const msg = Buffer.from(bytes);
      expect(await redis.eval(SHA, 0, msg)).toBe(createHash('sha256').update(msg).digest('hex'));
    },
  );

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
