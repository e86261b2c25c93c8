// Signed audit checkpoints (issue 29 item 5, finding F8): the attacks the chain alone does not catch — entries cut off
// the end with the head moved back, an entry rewritten with every later link recomputed — pass `verifyAuditChain`
// and are named against a checkpoint; a forged checkpoint is named too. The checkpointer writes only when the head
// moved, to an append-only 0600 file, and sends each checkpoint to a webhook until it is accepted.
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fc, test as fcTest } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditFields } from '../../../src/audit/chain.ts';
import {
  AuditCheckpointer,
  type ChainEntry,
  type Checkpoint,
  checkCheckpoints,
  checkpointMessage,
  parseCheckpoints,
  verifyAuditChain,
} from '../../../src/audit/index.ts';
import { Keyring, type KeyView, signStatement } from '../../../src/signing/index.ts';
import {
  anchoredChain,
  auditOf,
  checkpointsIn,
  edited,
  relink,
  replaceChain,
  streamEntries,
} from '../../support/audit-chain.ts';
import { tempStore } from '../../support/keys.ts';
import { testRedis } from '../../support/records.ts';

const redis = testRedis();
afterAll(() => redis.quit());

let keys: Keyring;
let auditKey: KeyView;
let otherKey: KeyView;
beforeAll(async () => {
  keys = new Keyring([await tempStore()]);
  auditKey = await keys.generate('ed25519', 'audit');
  otherKey = await keys.generate('p256', 'other');
});

const where = { file: 'cp.jsonl', unknownKey: 'unknown here' };
const keyOf = (fp: string) => (fp === auditKey.fingerprint ? auditKey : undefined);

const options = (store: { redis: typeof redis; prefix: string }) => ({
  audit: auditOf(store),
  signer: keys,
  key: auditKey.fingerprint,
  log: () => {},
});
const anchored = () => anchoredChain(redis, keys, auditKey.fingerprint);
const checkpointsOf = async (file: string) =>
  (await checkpointsIn(file)).map((checkpoint, i) => ({ line: i + 1, checkpoint }));

/** The chain's own check (what `quill audit verify` did alone), then the checkpoints. */
async function verdicts(prefix: string, file: string) {
  const audit = auditOf({ redis, prefix });
  const entries = await audit.entries('0-0', 1000);
  const chain = verifyAuditChain(entries, await audit.head());
  return { chain, checkpoints: checkCheckpoints(entries, await checkpointsOf(file), keyOf, where) };
}

describe('audit checkpoints', () => {
  it('are taken only when the head moved, appended to a 0600 file, and found again after a restart', async () => {
    const { store, file, checkpointer } = await anchored();
    const first = await checkpointer.checkpoint();
    expect(first).toMatchObject({ v: 1, count: 6, key: auditKey.fingerprint });
    expect(await checkpointer.checkpoint()).toBeUndefined();
    await auditOf(store).append({ kind: 'policy', at: 'now', actor: 'ops' });
    expect(await checkpointer.checkpoint()).toMatchObject({ count: 7 });
    expect(await checkpointer.checkpoint()).toBeUndefined();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const lines = await checkpointsOf(file);
    expect(lines.map((l) => l.checkpoint.count)).toEqual([6, 7]);
    expect(lines[0]?.checkpoint.lastId).toBe((await auditOf(store).entries()).at(5)?.id);
    // A new leader reads the newest checkpoint from the file: the same head is not signed twice.
    const again = new AuditCheckpointer({ ...options(store), file });
    expect(await again.checkpoint()).toBeUndefined();
    expect(again.last?.count).toBe(7);
    expect(await verdicts(store.prefix, file)).toMatchObject({
      chain: { ok: true },
      checkpoints: { ok: true, checked: 2 },
    });
  });

  it('(a) entries deleted from the end with the head moved back: the chain checks out, the checkpoint names it', async () => {
    const { prefix, file, checkpointer } = await anchored();
    const c = (await checkpointer.checkpoint()) as Checkpoint;
    const entries = await streamEntries(redis, `${prefix}audit`);
    await replaceChain(redis, prefix, entries.slice(0, 4));
    const v = await verdicts(prefix, file);
    expect(v.chain).toMatchObject({ ok: true, count: 4 });
    expect(v.checkpoints).toEqual({
      ok: false,
      problem: 'deleted',
      line: 1,
      reason: `entries after 4 were deleted (checkpoint of ${c.at} has count 6, the chain has 4)`,
    });
    // The leader notices at its next round; the checkpoint it then signs does not hide the older one.
    expect(await checkpointer.checkpoint()).toMatchObject({ count: 4 });
    expect(checkpointer.failures.chain).toBe(1);
    expect((await verdicts(prefix, file)).checkpoints).toMatchObject({ ok: false, problem: 'deleted' });
  });

  it('(b) an entry rewritten and every later one re-linked: the chain checks out, the checkpoint names it', async () => {
    const { prefix, file, checkpointer } = await anchored();
    const c = (await checkpointer.checkpoint()) as Checkpoint;
    const entries = await streamEntries(redis, `${prefix}audit`);
    const forged = relink(entries.map((e, i) => (i === 2 ? edited(e) : e)));
    await replaceChain(redis, prefix, forged);
    const v = await verdicts(prefix, file);
    expect(v.chain).toMatchObject({ ok: true, count: 6 });
    const now = forged[5]?.fields.find(([k]) => k === 'chainHash')?.[1];
    expect(v.checkpoints).toEqual({
      ok: false,
      problem: 'rewritten',
      line: 1,
      reason: `the chain up to entry 6 was rewritten (checkpoint of ${c.at} has head ${c.head}, the chain has ${now} at entry 6)`,
    });
  });

  it('(c) a forged checkpoint is named: an edited field, another key, an unknown key', async () => {
    const { prefix, checkpointer } = await anchored();
    const c = (await checkpointer.checkpoint()) as Checkpoint;
    const entries = await auditOf({ redis, prefix }).entries();
    const check = (cp: Checkpoint) =>
      checkCheckpoints(
        entries,
        [{ line: 3, checkpoint: cp }],
        (fp) => (fp === otherKey.fingerprint ? otherKey : keyOf(fp)),
        where,
      );
    expect(check(c)).toMatchObject({ ok: true });
    // A shorter count, so that a truncated chain would pass: the signature no longer matches.
    expect(check({ ...c, count: 4 })).toEqual({
      ok: false,
      problem: 'bad-signature',
      line: 3,
      reason: `the checkpoint at cp.jsonl:3 (of ${c.at}) has a bad signature: key ${auditKey.fingerprint} did not sign it (forged or edited)`,
    });
    // Signed by another key of the ring while naming the audit key.
    const body = { ...c, count: 4 };
    const { signature } = await signStatement(keys, otherKey.fingerprint, checkpointMessage(body));
    expect(check({ ...body, signature: Buffer.from(signature).toString('base64') })).toMatchObject({
      ok: false,
      problem: 'bad-signature',
    });
    expect(check({ ...c, key: `1220${'00'.repeat(32)}` })).toMatchObject({
      ok: false,
      problem: 'unknown-key',
      reason: expect.stringContaining(`is signed by key 1220${'00'.repeat(32)}, unknown here`),
    });
  });

  it('a checkpoint file that is not one is named by line', async () => {
    expect(parseCheckpoints('not json\n')).toMatchObject({ ok: false, line: 1, problem: 'not a JSON line' });
    expect(parseCheckpoints('\n{"v":1}\n')).toMatchObject({ ok: false, line: 2 });
    expect(parseCheckpoints('')).toEqual({ ok: true, checkpoints: [] });
  });

  it('are sent to a webhook until it accepts them; a webhook that hangs never holds up the file', async () => {
    const received: Checkpoint[] = [];
    let refuse = 2;
    let hang = false;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        if (hang) return; // never answers
        if (refuse-- > 0) return res.writeHead(503).end();
        received.push(JSON.parse(body));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { store, file } = await anchored();
      const checkpointer = new AuditCheckpointer({
        ...options(store),
        file,
        webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/checkpoints`,
        webhook: { baseDelayMs: 20, maxDelayMs: 50, timeoutMs: 60_000 },
        log: () => {},
      });
      const c = await checkpointer.checkpoint();
      await expect.poll(() => received.length, { timeout: 5000 }).toBe(1);
      expect(received[0]).toEqual(c);
      expect(checkpointer.failures.webhook).toBe(2);
      hang = true;
      await auditOf(store).append({ kind: 'policy', at: 'now', actor: 'ops' });
      const started = Date.now();
      expect(await checkpointer.checkpoint()).toMatchObject({ count: 7 });
      expect(Date.now() - started).toBeLessThan(2000);
      expect((await checkpointsOf(file)).length).toBe(2);
      await checkpointer.close({ final: true, graceMs: 100 });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

/** A chain of `n` entries built as the Lua script builds it (no Redis: the property runs many times). */
function chainOf(n: number): ChainEntry[] {
  return relink(
    Array.from({ length: n }, (_, i) => {
      const own = auditFields({ kind: 'policy', at: `t${i}`, actor: `a${i}` });
      const fields: [string, string][] = [];
      for (let j = 0; j < own.length; j += 2) fields.push([own[j] as string, own[j + 1] as string]);
      return { id: `${i + 1}-0`, fields: [...fields, ['chainPrev', ''], ['chainHash', '']] };
    }),
  );
}

describe('the property', () => {
  fcTest.prop(
    [
      fc.integer({ min: 1, max: 12 }).chain((n) =>
        fc.record({
          n: fc.constant(n),
          count: fc.integer({ min: 1, max: n }),
          at: fc.integer({ min: 0, max: n - 1 }),
          kind: fc.constantFrom('delete', 'edit'),
          relinked: fc.boolean(),
        }),
      ),
    ],
    { numRuns: 200 },
  )(
    'any single deletion or edit of an entry at or before a checkpoint’s count is detected',
    async ({ n, count, at, kind, relinked }) => {
      fc.pre(at < count);
      const chain = chainOf(n);
      const head = chain[count - 1]?.fields.find(([k]) => k === 'chainHash')?.[1] as string;
      const body = {
        v: 1 as const,
        count,
        head,
        lastId: chain[count - 1]?.id as string,
        at: new Date().toISOString(),
        key: auditKey.fingerprint,
      };
      const { signature } = await signStatement(keys, auditKey.fingerprint, checkpointMessage(body));
      const checkpoint = { ...body, signature: Buffer.from(signature).toString('base64') };
      const changed =
        kind === 'delete'
          ? chain.filter((_, i) => i !== at)
          : chain.map((e, i) => (i === at ? edited(e) : e));
      const tampered = relinked ? relink(changed) : changed;
      const newHead = tampered.at(-1)?.fields.find(([k]) => k === 'chainHash')?.[1];
      const chainOk = verifyAuditChain(tampered, relinked ? newHead : head).ok;
      const anchoredOk = checkCheckpoints(tampered, [{ line: 1, checkpoint }], keyOf, where).ok;
      expect(chainOk && anchoredOk).toBe(false);
      // Without tampering both pass: the property is about the change, not the check.
      expect(checkCheckpoints(chain, [{ line: 1, checkpoint }], keyOf, where).ok).toBe(true);
    },
  );
});

afterAll(() => keys?.close());
