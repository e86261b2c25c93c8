// Exactly once under faults: 500 submissions while the sandbox answers 503s, 504s, drops connections and
// hides commits behind timeouts, worker processes are SIGKILLed at random and Redis is restarted once.
// Every submission must end committed exactly once on the ledger, or with a definite reason; none lost.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mint, type Sandbox } from '../../src/sandbox/index.ts';
import { freePort } from '../support/redis-global-setup.ts';
import { type RedisProcess, startRedisProcess, stopRedisProcess } from '../support/redis-process.ts';
import {
  coinTemplate,
  noteCommand,
  prepareOn,
  startFullWallet,
  startLedger,
  walletConfig,
} from './support.ts';

const N = 500;
const EXEC = '/v2/interactive-submission/executeAndWaitForTransaction';
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A private Redis with an append-only file synced on every write, so a restart loses nothing acknowledged. */
function startRedis(port: number, dir: string): Promise<RedisProcess> {
  return startRedisProcess(port, ['--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always']);
}

function startWorker(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [resolve('bin/quill.js'), 'serve', '--role', 'worker'], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
}

describe('exactly once under faults', () => {
  it(`${N} submissions: each committed once or ended with a reason, none lost, no duplicates`, {
    timeout: 180_000,
  }, async () => {
    const redisPort = await freePort();
    const redisDir = mkdtempSync(join(tmpdir(), 'quill-fault-redis-'));
    let redis = await startRedis(redisPort, redisDir);
    cleanups.push(async () => {
      await stopRedisProcess(redis);
      rmSync(redisDir, { recursive: true, force: true });
    });
    const redisUrl = `redis://127.0.0.1:${redisPort}`;

    const sandbox: Sandbox = await startLedger();
    cleanups.push(() => sandbox.close());
    const config = walletConfig(redisUrl);
    // What the API logs at error level (the causes of 5xx answers, with the request id), for a failure message.
    const apiErrors: string[] = [];
    const api = await startFullWallet(sandbox, config, 'api', undefined, undefined, (level, msg, fields) => {
      if (level === 'error') apiErrors.push(`${msg} ${JSON.stringify(fields)}`);
    });
    cleanups.push(() => api.wallet.close());

    const parties: string[] = [];
    for (let i = 0; i < 4; i++) {
      const key = await api.keys.generate(i % 2 ? 'p256' : 'ed25519');
      parties.push(
        (await api.parties.onboard({ keyFingerprint: key.fingerprint, partyHint: `fault${i}` })).partyId,
      );
    }
    // 10 double spends: two transfers of the same holding; the ledger takes one and definitely refuses the other.
    const bob = sandbox.state.allocateLocalParty('bob').partyId;
    const bodies: Awaited<ReturnType<typeof prepareOn>>[] = [];
    const pairs: [string, string][] = [];
    for (let k = 0; k < 10; k++) {
      const owner = parties[k % 4] as string;
      const holding = mint(sandbox.state, owner, '10.0000000000').nodes.find(
        (n) => n.kind === 'create' && n.contract.templateId.endsWith(':Holding'),
      );
      const cid = holding?.kind === 'create' ? holding.contract.contractId : '';
      const spend = (amount: string) =>
        prepareOn(api.client, owner, {
          ExerciseCommand: {
            templateId: coinTemplate('Holding'),
            contractId: cid,
            choice: 'Holding_Transfer',
            choiceArgument: { receiver: bob, amount },
          },
        });
      const a = await spend('3.0000000000');
      const b = await spend('4.0000000000');
      bodies.push(a, b);
      pairs.push([a.preparedTransactionHash, b.preparedTransactionHash]);
    }
    for (let i = bodies.length; i < N; i += 10) {
      const chunk = Array.from({ length: 10 }, (_, j) => {
        const party = parties[(i + j) % 4] as string;
        const scheme = (i + j) % 2 ? 'HASHING_SCHEME_VERSION_V3' : 'HASHING_SCHEME_VERSION_V2';
        return prepareOn(api.client, party, noteCommand(party), scheme);
      });
      bodies.push(...(await Promise.all(chunk)));
    }
    const started = Date.now();
    sandbox.faults.configure({
      seed: 7,
      rules: [
        { kind: 'unavailable', endpoint: EXEC, probability: 0.06 },
        { kind: 'timeout', endpoint: EXEC, probability: 0.05 },
        { kind: 'drop', endpoint: EXEC, probability: 0.04 },
        { kind: 'timeoutAfterCommit', endpoint: EXEC, probability: 0.06, answer: '504' },
        { kind: 'timeoutAfterCommit', endpoint: EXEC, probability: 0.05, answer: '503' },
        { kind: 'timeoutAfterCommit', endpoint: EXEC, probability: 0.05, answer: 'drop' },
        { kind: 'inFlight', endpoint: EXEC, probability: 0.02 },
        // slower than the worker's 2 s client timeout: the client gives up, the ledger commits afterwards
        { kind: 'latency', endpoint: EXEC, probability: 0.03, latencyMs: 2600 },
      ],
    });

    const workerEnv = {
      PORT: '0',
      HOST: '127.0.0.1',
      LEDGER_URL: sandbox.url,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: config.redisPrefix,
      LEDGER_TIMEOUT_MS: '2000',
      WORKER_CONCURRENCY: '24',
      WORKER_LOCK_DURATION_MS: '4000',
      WORKER_STALLED_INTERVAL_MS: '1000',
      SWEEP_INTERVAL_MS: '1500',
      RETRY_BASE_DELAY_MS: '50',
      RETRY_MAX_DELAY_MS: '800',
      SUBMIT_MAX_ATTEMPTS: '40',
      LOG_LEVEL: 'silent',
    };
    const workers: ChildProcess[] = [startWorker(workerEnv), startWorker(workerEnv)];
    cleanups.push(() => {
      for (const w of workers) w.kill('SIGKILL');
    });

    // Submit in batches; items refused for lack of Redis are sent again (same body → same record).
    let pending = bodies.map((b, i) => ({ ...b, idempotencyKey: `fault-${i}` }));
    let kills = 0;
    let redisRestarts = 0;
    const chaos = (async () => {
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        await sleep(1200 + Math.floor(Math.random() * 1500));
        const counts = await api.wallet.store.countByStatus().catch(() => undefined);
        if (counts && counts.committed + counts.rejected + counts.expired >= N) return;
        const i = Math.floor(Math.random() * workers.length);
        workers[i]?.kill('SIGKILL');
        kills++;
        workers[i] = startWorker(workerEnv);
      }
    })();
    // The known hang (issue 13): the old server, SIGKILLed in the middle of an fsync (appendfsync always), lives
    // on until the fsync returns and holds the port; the new one started 300 ms later could not bind and exited,
    // the start did not notice, and Redis stayed down: every resubmission answered 503, forever. Now the restart
    // waits until the old process is gone, and a new one that exits or never answers fails the test, naming why.
    let restarting: Promise<void> | undefined;
    const restartRedis = () => {
      restarting ??= (async () => {
        await stopRedisProcess(redis);
        await sleep(300);
        redis = await startRedis(redisPort, redisDir);
        redisRestarts++;
      })();
      return restarting;
    };

    const token = await (await import('../../src/api/index.ts')).issueToken({
      secret: (await import('./support.ts')).SECRET,
      role: 'submit',
      ttlSeconds: 3600,
    });
    // Bounded: an item still refused after RESUBMIT_FOR_MS fails the test with its last answers and the causes the
    // API logged for them, instead of hanging until the test's timeout.
    const RESUBMIT_FOR_MS = 45_000;
    const lastError = new Map<string, string>();
    const restartFailed: Error[] = [];
    const resubmitStarted = Date.now();
    let rounds = 0;
    while (pending.length > 0) {
      if (restartFailed[0]) throw restartFailed[0];
      if (Date.now() - resubmitStarted > RESUBMIT_FOR_MS) {
        const stuck = pending.map((p) => `${p.idempotencyKey}: ${lastError.get(p.idempotencyKey) ?? '?'}`);
        throw new Error(
          `${pending.length} submissions still refused after ${rounds} rounds:\n${stuck.slice(0, 10).join('\n')}\n` +
            `causes logged by the API:\n${apiErrors.slice(-5).join('\n')}`,
        );
      }
      rounds++;
      const retry: typeof pending = [];
      for (let i = 0; i < pending.length; i += 50) {
        if (i === 200 && !restarting) restartRedis().catch((err) => restartFailed.push(err as Error));
        const chunk = pending.slice(i, i + 50);
        try {
          const res = await fetch(`${api.wallet.url}/wallet/v1/submissions/batch`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ submissions: chunk }),
          });
          const json = (await res.json()) as {
            items?: { index: number; status: number; error?: { code: string; message: string } }[];
            error?: { code: string; message: string };
          };
          const items =
            json.items ?? chunk.map((_, index) => ({ index, status: res.status, error: json.error }));
          for (const item of items) {
            const body = chunk[item.index] as (typeof pending)[number];
            if (item.status >= 500) {
              retry.push(body);
              lastError.set(body.idempotencyKey, `${item.status} ${JSON.stringify(item.error)}`);
            } else expect(item.status, JSON.stringify(item.error)).toBe(202);
          }
        } catch (err) {
          for (const body of chunk) lastError.set(body.idempotencyKey, String(err));
          retry.push(...chunk);
        }
      }
      pending = retry;
      if (pending.length) await sleep(300);
    }

    await restarting;
    // Everything reaches a terminal state.
    const store = api.wallet.store;
    const t0 = Date.now();
    for (;;) {
      const c = await store.countByStatus().catch(() => undefined);
      if (c && c.committed + c.rejected + c.expired >= N) break;
      if (Date.now() - t0 > 120_000) throw new Error(`not finished: ${JSON.stringify(c)}`);
      await sleep(250);
    }
    await chaos;

    const byHash = new Map<string, Awaited<ReturnType<typeof store.list>>['items'][number]>();
    let cursor: string | undefined;
    do {
      const page = await store.list({ limit: 200, ...(cursor ? { cursor } : {}) });
      for (const r of page.items) byHash.set(r.preparedTransactionHash, r);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(byHash.size).toBe(N);
    const counts = { committed: 0, rejected: 0, expired: 0 };
    let attempts = 0;
    let duplicates = 0;
    for (const b of bodies) {
      const hashHex = Buffer.from(b.preparedTransactionHash, 'base64').toString('hex');
      const rec = byHash.get(hashHex);
      expect(rec, `lost: ${hashHex}`).toBeDefined();
      if (!rec) continue;
      const onLedger = sandbox.state.commits.get(rec.commandId) ?? 0;
      if (onLedger > 1) duplicates++;
      attempts += rec.attempts.length;
      counts[rec.status as keyof typeof counts]++;
      if (rec.status === 'committed') {
        expect(onLedger).toBe(1);
        expect(rec.updateId).toBeTruthy();
      } else {
        expect(onLedger).toBe(0);
        expect(rec.error?.code).toBeTruthy();
      }
    }
    expect(duplicates).toBe(0);
    for (const [a, b] of pairs) {
      const hex = (x: string) => Buffer.from(x, 'base64').toString('hex');
      const statuses = [byHash.get(hex(a))?.status, byHash.get(hex(b))?.status].sort();
      expect(statuses).toEqual(['committed', 'rejected']);
    }
    expect(counts.committed + counts.rejected + counts.expired).toBe(N);
    console.log(
      `faults: ${N} submissions → committed ${counts.committed}, rejected ${counts.rejected}, expired ${counts.expired}; ` +
        `duplicates 0, lost 0; ${attempts} attempts; worker SIGKILLs ${kills}, Redis restarts ${redisRestarts}; ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s; ` +
        `injected ${JSON.stringify(sandbox.faults.describe().injected)}`,
    );
    expect(redisRestarts).toBe(1);
    expect(kills).toBeGreaterThan(2);
  });
});
