// The backup and restore drill (issue 31 item 1): a whole wallet on the embedded sandbox with submissions in every
// state it can be left in (committed, rejected, expired, awaiting approval, queued behind a paused worker) is backed
// up with `quill backup`, its Redis flushed and its KEYS_DIR deleted, restored with `quill restore` into fresh ones,
// and started again: the records are the same JSON, the queued work commits exactly once (one whose job the backup
// missed included: the recovery sweep requeues it), the audit chain verifies against the backup's signed checkpoint
// (and the live checkpoint file names what the restore lost), a submission accepted after the backup is gone and
// commits once when sent again, and the restored keys still sign.
// Then what restore refuses: a changed file (exit 1 naming it), a target that holds data, garbage (exit 2).
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox } from '@quill/sandbox';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditCheckpointer } from '../../../src/audit/index.ts';
import type { Config } from '../../../src/config/index.ts';
import { jobIdFor } from '../../../src/submissions/index.ts';
import { GATED, gatedPolicy } from '../../support/console.ts';
import { freePort } from '../../support/redis-global-setup.ts';
import { type RedisProcess, startRedisProcess, stopRedisProcess } from '../../support/redis-process.ts';
import { runCli } from '../../support/run-cli.ts';
import { tempDir } from '../../support/tmp.ts';
import {
  noteCommand,
  prepareOn,
  spendCommand,
  startFullWallet,
  startLedger,
  tapCommand,
  walletConfig,
} from '../../support/wallet.ts';

type Rec = { id: string; status: string; commandId: string; updateId?: string | null };
type Wallet = Awaited<ReturnType<typeof startFullWallet>>;

const EXEC = '/v2/interactive-submission/executeAndWaitForTransaction';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let redisProcess: RedisProcess;
/** A second Redis, for the restore of a backup taken while the wallet ran. */
let secondRedis: RedisProcess | undefined;
let redisUrl = '';
let sandbox: Sandbox;
let config: Config;
let w: Wallet | undefined;
let party = '';
let auditCheckpointer: AuditCheckpointer | undefined;
const keysDir = tempDir('quill-drill-keys-');
const restoredKeys = join(tempDir('quill-drill-restored-'), 'keys');
const backupDir = join(tempDir('quill-drill-backup-'), 'b1');
/** Each record as the API answered it just before the backup, by id. */
const before = new Map<string, Rec>();
/** The deployment's audit checkpoint file, and where the restore writes the backup's copy of it. */
const checkpointFile = join(tempDir('quill-drill-cp-live-'), 'checkpoints.jsonl');
const restoredCheckpoints = join(tempDir('quill-drill-cp-restored-'), 'checkpoints.jsonl');
const queued: Rec[] = [];
/** A submission accepted after the backup, and the body it was sent with. */
let lost: Rec | undefined;
let lostBody: unknown;

/** What the CLI reads: this deployment's Redis and keys, nothing from the test process's environment. */
const cliEnv = (keys: string, more: Record<string, string | undefined> = {}) => ({
  REDIS_URL: redisUrl,
  REDIS_PREFIX: config.redisPrefix,
  REDIS_SENTINELS: undefined,
  REDIS_CLUSTER_NODES: undefined,
  KEYS_DIR: keys,
  KEYSTORE_PASSPHRASE: undefined,
  KEYSTORE_PASSPHRASE_FILE: undefined,
  AUDIT_KEY: undefined,
  AUDIT_CHECKPOINT_FILE: undefined,
  ...more,
});

async function get(id: string): Promise<Rec> {
  return (await (w as Wallet).call('GET', `/wallet/v1/submissions/${id}`)).json as unknown as Rec;
}

async function submit(body: unknown, wait = true): Promise<Rec> {
  const res = await (w as Wallet).call('POST', `/wallet/v1/submissions${wait ? '?wait=20' : ''}`, body);
  expect([200, 202]).toContain(res.status);
  return res.json as unknown as Rec;
}

beforeAll(async () => {
  // A Redis of its own: the drill flushes it.
  const port = await freePort();
  redisProcess = await startRedisProcess(port, ['--dir', tempDir('quill-drill-redis-')]);
  redisUrl = `redis://127.0.0.1:${port}`;
  sandbox = await startLedger();
  config = walletConfig(redisUrl, { POLICY_FILE: gatedPolicy() });
  w = await startFullWallet(sandbox, config, 'all', keysDir);
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519', label: 'drill' });
  const made = await w.call('POST', '/wallet/v1/parties', {
    keyFingerprint: key.json.fingerprint,
    partyHint: 'drill',
  });
  expect(made.status).toBe(201);
  party = made.json.partyId as string;
}, 60_000);

afterAll(async () => {
  await w?.wallet.close();
  await sandbox?.close();
  if (redisProcess) await stopRedisProcess(redisProcess);
  if (secondRedis) await stopRedisProcess(secondRedis);
});

describe('backup and restore drill', () => {
  it('leaves submissions in every state', { timeout: 60_000 }, async () => {
    const wallet = w as Wallet;
    // Committed: a tap (whose holding the next two spend) and a note.
    const tap = await submit(
      await prepareOn(
        wallet.client,
        party,
        tapCommand(String(sandbox.state.coinRules), party, '10.0000000000'),
      ),
    );
    expect(tap.status).toBe('committed');
    const note = await submit(await prepareOn(wallet.client, party, noteCommand(party)));
    expect(note.status).toBe('committed');
    // Rejected: the second of two spends of one holding.
    const holding = (
      tap as unknown as {
        transaction?: { events: { CreatedEvent?: { templateId: string; contractId: string } }[] };
      }
    ).transaction?.events.find((e) => e.CreatedEvent?.templateId.endsWith(':Holding'))?.CreatedEvent
      ?.contractId;
    expect(holding).toBeDefined();
    const first = await prepareOn(wallet.client, party, spendCommand(String(holding), party, '1.0000000000'));
    const second = await prepareOn(
      wallet.client,
      party,
      spendCommand(String(holding), party, '2.0000000000'),
    );
    expect((await submit(first)).status).toBe('committed');
    const rejected = await submit(second);
    expect(rejected.status).toBe('rejected');
    // Expired: prepared to commit within two seconds, and the worker (paused) takes it up after that.
    const late = await prepareOn(wallet.client, party, noteCommand(party), 'HASHING_SCHEME_VERSION_V2', {
      maxRecordTime: new Date(Date.now() + 2000).toISOString(),
    });
    await wallet.wallet.worker?.pause();
    const expiring = await submit(late, false);
    await sleep(2500);
    wallet.wallet.worker?.resume();
    await expect.poll(async () => (await get(expiring.id)).status, { timeout: 20_000 }).toBe('expired');
    // Awaiting approval: the gated policy holds it.
    const gated = await submit(
      await prepareOn(wallet.client, party, {
        CreateCommand: { templateId: GATED, createArguments: { owner: party, n: 'drill' } },
      }),
      false,
    );
    expect(gated.status).toBe('awaiting_approval');
    // Queued: the worker is paused, so three stay in the queue (none reaches the ledger).
    await wallet.wallet.worker?.pause();
    for (let i = 0; i < 3; i++) {
      const r = await submit(await prepareOn(wallet.client, party, noteCommand(party)), false);
      expect(r.status).toBe('queued');
      queued.push(r);
    }
    await sleep(300);
    const all = (await wallet.call('GET', '/wallet/v1/submissions?limit=100')).json as unknown as {
      items: Rec[];
    };
    for (const r of all.items) before.set(r.id, await get(r.id));
    expect(new Set([...before.values()].map((r) => r.status))).toEqual(
      new Set(['committed', 'rejected', 'expired', 'awaiting_approval', 'queued']),
    );
    for (const q of queued) expect(sandbox.state.commits.get(q.commandId)).toBeUndefined();
  });

  it('signs a checkpoint of the audit chain with an audit key of the key store', async () => {
    const wallet = w as Wallet;
    const key = await wallet.keys.generate('ed25519', 'audit');
    const checkpointer = new AuditCheckpointer({
      audit: wallet.wallet.audit,
      signer: wallet.keys,
      key: key.fingerprint,
      file: checkpointFile,
      log: () => {},
    });
    expect(await checkpointer.checkpoint()).toMatchObject({ key: key.fingerprint });
    auditCheckpointer = checkpointer;
  });

  it('backs up, loses Redis and KEYS_DIR, restores into fresh ones', { timeout: 60_000 }, async () => {
    const out = await runCli(
      ['backup', '--out', backupDir],
      cliEnv(keysDir, { AUDIT_CHECKPOINT_FILE: checkpointFile }),
    );
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8')) as {
      quillVersion: string;
      createdAt: string;
      redis: { keys: number };
      files: Record<string, { sha256: string }>;
    };
    expect(manifest.quillVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(manifest.redis.keys).toBeGreaterThan(10);
    const files = Object.keys(manifest.files);
    expect(files).toContain('redis.jsonl');
    expect(files.some((f) => /^keys\/1220[0-9a-f]{64}\.json$/.test(f))).toBe(true);
    expect(files.some((f) => /^keys\/parties\/[0-9a-f]{64}\.json$/.test(f))).toBe(true);
    for (const [f, { sha256 }] of Object.entries(manifest.files)) {
      expect(
        createHash('sha256')
          .update(readFileSync(join(backupDir, f)))
          .digest('hex'),
        f,
      ).toBe(sha256);
    }
    // The key files are copied sealed, byte for byte.
    const keyFile = files.find((f) => /^keys\/1220/.test(f)) as string;
    expect(readFileSync(join(backupDir, keyFile))).toEqual(readFileSync(join(keysDir, keyFile.slice(5))));

    expect(files).toContain('audit-checkpoints.jsonl');

    // After the backup a submission is accepted (its signature is in the chain; the worker is still paused) and
    // a checkpoint signs the chain: what a restore loses, and the live file shows.
    const wallet = w as Wallet;
    lostBody = await prepareOn(wallet.client, party, noteCommand(party));
    lost = await submit(lostBody, false);
    expect(lost.status).toBe('queued');
    await auditCheckpointer?.checkpoint();

    // The disaster: the wallet stops, Redis loses everything, the key store is gone.
    await w?.wallet.close();
    w = undefined;
    const redis = new Redis(redisUrl);
    await redis.flushall();
    expect(await redis.dbsize()).toBe(0);
    rmSync(keysDir, { recursive: true, force: true });

    const restored = await runCli(
      ['restore', backupDir],
      cliEnv(restoredKeys, { AUDIT_CHECKPOINT_FILE: restoredCheckpoints }),
    );
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    // A key whose TTL ran out between backup and restore (a lease) is left out, and said.
    const restoredCount = Number(/(\d+) Redis keys/.exec(restored.stdout)?.[1]);
    const expiredKeys = Number(/\((\d+) had expired/.exec(restored.stdout)?.[1] ?? 0);
    expect(restoredCount + expiredKeys).toBe(manifest.redis.keys);
    expect(restored.stdout).toContain(`audit checkpoints to ${restoredCheckpoints}`);

    // The restored chain verifies against the backup's checkpoints, signed by the restored audit key; the live
    // file's newer checkpoint names the entries the restore lost.
    const keyEnv = { KEYSTORE_PASSPHRASE: 'e2e passphrase' };
    const verified = await runCli(
      ['audit', 'verify'],
      cliEnv(restoredKeys, { ...keyEnv, AUDIT_CHECKPOINT_FILE: restoredCheckpoints }),
    );
    expect(verified.stderr).toBe('');
    expect(verified.stdout).toMatch(/^ok: \d+ entries, head \w+\n1 checkpoints checked/);
    const cut = await runCli(
      ['audit', 'verify'],
      cliEnv(restoredKeys, { ...keyEnv, AUDIT_CHECKPOINT_FILE: checkpointFile }),
    );
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/^quill: audit checkpoints: /);

    // A backup taken while the service runs can hold a record whose job it missed: drop one job, and the
    // recovery sweep must requeue it from the record.
    const queue = new Queue(config.queue.name, { connection: redis, prefix: `${config.redisPrefix}:bull` });
    const job = await queue.getJob(jobIdFor(queued[0] as Rec));
    expect(job).toBeDefined();
    await job?.remove();
    await queue.close();
    redis.disconnect();
  });

  it('continues: records intact, queued work commits once, audit verifies, keys sign', {
    timeout: 90_000,
  }, async () => {
    w = await startFullWallet(sandbox, config, 'all', restoredKeys);
    for (const [id, rec] of before) {
      if (rec.status === 'queued') continue;
      expect(await get(id), id).toEqual(rec);
    }
    for (const q of queued) {
      await expect.poll(async () => (await get(q.id)).status, { timeout: 30_000 }).toBe('committed');
    }
    await sleep(1500); // a second sweep: nothing is sent again
    for (const q of queued) expect(sandbox.state.commits.get(q.commandId), q.id).toBe(1);

    const verify = await runCli(['audit', 'verify'], cliEnv(restoredKeys));
    expect(verify.stderr).toBe('');
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/^ok: \d+ entries/);

    // The submission accepted after the backup is gone from Quill; sent again as it was, it commits once.
    const l = lost as Rec;
    expect((await w.call('GET', `/wallet/v1/submissions/${l.id}`)).status).toBe(404);
    expect(sandbox.state.commits.get(l.commandId)).toBeUndefined();
    const again = await submit(lostBody);
    expect([again.status, again.commandId]).toEqual(['committed', l.commandId]);
    expect(sandbox.state.commits.get(l.commandId)).toBe(1);

    // The restored key store still unlocks and signs: a new submission commits.
    const fresh = await submit(await prepareOn(w.client, party, noteCommand(party)));
    expect(fresh.status).toBe('committed');
    expect(sandbox.state.commits.get(fresh.commandId)).toBe(1);
  });

  it('refuses a target holding data, a changed file, and garbage', async () => {
    // Redis and KEYS_DIR hold the restored deployment now.
    const over = await runCli(['restore', backupDir], cliEnv(restoredKeys));
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(
      /^quill: refusing to restore over existing data: KEYS_DIR .* Redis holds keys/,
    );

    // Records, queues and indexes come back under the prefix they were taken from.
    const moved = await runCli(
      ['restore', backupDir],
      cliEnv(tempDir('quill-drill-moved-'), { REDIS_PREFIX: 'elsewhere' }),
    );
    expect([moved.code, moved.stderr]).toEqual([
      2,
      `quill: the backup is of REDIS_PREFIX ${config.redisPrefix}, not elsewhere: restore it under its own prefix\n`,
    ]);

    const tampered = join(tempDir('quill-drill-tampered-'), 'b');
    const copy = await runCli(['backup', '--out', tampered], cliEnv(restoredKeys));
    expect(copy.code).toBe(0);
    const lines = readFileSync(join(tampered, 'redis.jsonl'), 'utf8').split('\n');
    writeFileSync(join(tampered, 'redis.jsonl'), lines.slice(1).join('\n'));
    const bad = await runCli(['restore', tampered], cliEnv(tempDir('quill-drill-empty-')));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      "quill: backup file redis.jsonl: its SHA-256 is not the manifest's (changed or damaged)\n",
    );

    const missing = await runCli(['restore', join(tampered, 'nothing-here')], cliEnv(restoredKeys));
    expect(missing.code).toBe(2);
    expect(missing.stderr.split('\n')).toHaveLength(2);
    writeFileSync(join(tampered, 'manifest.json'), '{"format": "quill-backup", "files": 3');
    const garbage = await runCli(['restore', tampered], cliEnv(restoredKeys));
    expect([garbage.code, garbage.stderr]).toEqual([
      2,
      `quill: ${join(tampered, 'manifest.json')}: not JSON\n`,
    ]);
    writeFileSync(join(tampered, 'manifest.json'), '{"format": "something else"}');
    const other = await runCli(['restore', tampered], cliEnv(restoredKeys));
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('not a Quill backup manifest');
    const notEmpty = await runCli(['backup', '--out', tampered], cliEnv(restoredKeys));
    expect(notEmpty.code).toBe(2);
    expect(notEmpty.stderr).toContain('not empty');
  });

  it('carries the audit checkpoint file, and --force replaces what the target holds', {
    timeout: 30_000,
  }, async () => {
    const checkpoints = join(tempDir('quill-drill-cp-'), 'checkpoints.jsonl');
    writeFileSync(checkpoints, '{"a checkpoint":"line"}\n', { mode: 0o600 });
    const dir = join(tempDir('quill-drill-cpb-'), 'b');
    const made = await runCli(
      ['backup', '--out', dir],
      cliEnv(restoredKeys, { AUDIT_CHECKPOINT_FILE: checkpoints }),
    );
    expect(made.code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      auditCheckpoints: boolean;
      files: Record<string, unknown>;
    };
    expect(manifest.auditCheckpoints).toBe(true);
    expect(Object.keys(manifest.files)).toContain('audit-checkpoints.jsonl');

    const elsewhere = join(tempDir('quill-drill-cp2-'), 'checkpoints.jsonl');
    await w?.wallet.close();
    w = undefined;
    const r = new Redis(redisUrl);
    await r.set(`${config.redisPrefix}:not-in-the-backup`, 'x');
    const forced = await runCli(
      ['restore', dir, '--force'],
      cliEnv(restoredKeys, { AUDIT_CHECKPOINT_FILE: elsewhere }),
    );
    expect(forced.stderr).toBe('');
    expect(forced.code).toBe(0);
    expect(readFileSync(elsewhere, 'utf8')).toBe('{"a checkpoint":"line"}\n');
    expect(await r.exists(`${config.redisPrefix}:not-in-the-backup`)).toBe(0);
    expect(forced.stdout).toContain(`audit checkpoints to ${elsewhere}`);
    r.disconnect();
  });

  it('a backup of a running wallet, submissions in flight, restores to one that finishes each once', {
    timeout: 120_000,
  }, async () => {
    // The deployment restored above, running against a slow ledger that sometimes times out after committing:
    // a backup taken meanwhile catches records queued, executing, and committed behind their copy.
    w = await startFullWallet(sandbox, config, 'all', restoredKeys);
    const wallet = w;
    sandbox.faults.configure({
      seed: 31,
      rules: [
        { kind: 'latency', endpoint: EXEC, latencyMs: 300 },
        { kind: 'timeoutAfterCommit', endpoint: EXEC, probability: 0.3 },
      ],
    });
    const bodies = await Promise.all(
      Array.from({ length: 12 }, () => prepareOn(wallet.client, party, noteCommand(party))),
    );
    const sent: Rec[] = [];
    const sending = (async () => {
      for (const b of bodies) {
        sent.push(await submit(b, false));
        await sleep(40);
      }
    })();
    await sleep(250);
    const live = join(tempDir('quill-drill-live-'), 'b');
    const out = await runCli(['backup', '--out', live], cliEnv(restoredKeys));
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    await sending;
    await wallet.wallet.close();
    w = undefined;
    sandbox.faults.configure({ rules: [] });

    // Restored into another Redis and key store, and started there.
    const port = await freePort();
    secondRedis = await startRedisProcess(port, ['--dir', tempDir('quill-drill-redis2-')]);
    const url = `redis://127.0.0.1:${port}`;
    const keys = join(tempDir('quill-drill-keys2-'), 'keys');
    const restored = await runCli(['restore', live], cliEnv(keys, { REDIS_URL: url }));
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    w = await startFullWallet(
      sandbox,
      walletConfig(url, { REDIS_PREFIX: config.redisPrefix, POLICY_FILE: gatedPolicy() }),
      'all',
      keys,
    );
    const back = w;
    const present: Rec[] = [];
    for (const r of sent) {
      const res = await back.call('GET', `/wallet/v1/submissions/${r.id}`);
      if (res.status === 200) present.push(r);
      else expect(res.status).toBe(404); // accepted after the copy
    }
    expect(present.length).toBeGreaterThan(0);
    for (const r of present) {
      await expect.poll(async () => (await get(r.id)).status, { timeout: 60_000 }).toBe('committed');
    }
    await sleep(1500); // another sweep: nothing is sent again
    for (const r of sent) expect(sandbox.state.commits.get(r.commandId) ?? 0, r.id).toBeLessThanOrEqual(1);
    for (const r of present) expect(sandbox.state.commits.get(r.commandId), r.id).toBe(1);
    const verify = await runCli(['audit', 'verify'], cliEnv(keys, { REDIS_URL: url }));
    expect(verify.stderr).toBe('');
    expect(verify.code).toBe(0);
  });
});
