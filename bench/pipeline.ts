// Submissions/s end to end through Quill (API → Redis → BullMQ → executeAndWaitForTransaction) and accept
// latency, beside the same kind of transactions executed directly against the sandbox with no queue.
// The sandbox runs as its own process (`quill sandbox`), as a participant does beside a wallet; --in-process
// puts it on the benchmark's own thread instead, and --split runs the worker as its own process.
// Then, in the same run, transfer intents (POST /wallet/v1/transfers: Quill picks the holdings, asks the registry and
// the participant, checks, signs, submits) from parties funded with many holdings of the sandbox's two registries,
// printed as intents/s beside prepared submissions/s and their ratio; --intents K sets how many (default N/2, 0 skips).
// Run: npm run bench:pipeline [-- N] [-- --in-process] [-- --split] [-- --intents K]
// Shapes: npm run bench:pipeline -- --api-processes 1,2 --workers 1,2 [N] runs the API (`quill serve --role api
// --processes K`) and M `--role worker` processes as real child processes for each (K, M) and prints committed/s and
// accept p50/p99 at 4 and 64 callers for each (closed loop: each caller sends again as soon as it is answered),
// then accept p50/p99 with 64 callers offering half the shape's committed/s (open loop), beside direct execution
// measured in the same run, and the CPU each process spent per transaction; each shape's processes first commit
// --warmup K transactions unmeasured (default 1000); --profile DIR has those processes write CPU profiles there.
// (REDIS_URL to use an existing Redis; else a private redis-server)
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerClient } from '@quill/canton/ledger';
import { SANDBOX_RECOGNIZERS, startSandbox } from '@quill/sandbox';
import { issueToken } from '../src/auth/index.ts';
import { loadConfig } from '../src/config/index.ts';
import { onboardExternalParty, PartyRegistry } from '../src/parties/index.ts';
import { startWallet } from '../src/server/wallet.ts';
import { Keyring, KeyStore, verifyingSigner } from '../src/signing/index.ts';
import { ledgerPort } from '../src/submissions/ledger.ts';
import { fund, intentBody, planIntents, sandboxFunding, untilIndexed } from './intents.ts';

const N = Number(
  process.argv
    .slice(2)
    .find(
      (a, i, all) => /^\d+$/.test(a) && !/^--(api-processes|workers|intents|warmup)$/.test(all[i - 1] ?? ''),
    ) ?? 2000,
);
/** --split: the worker runs as its own process (`quill serve --role worker`), as when scaling out. */
const SPLIT = process.argv.includes('--split');
/** --in-process: the sandbox shares this process's thread with the callers, the API and the worker. */
const IN_PROCESS = process.argv.includes('--in-process');
const CONCURRENCY = 64;
/** `--flag 1,2` → [1, 2]; absent → undefined. */
function counts(flag: string): number[] | undefined {
  const i = process.argv.indexOf(flag);
  if (i < 0) return undefined;
  return (process.argv[i + 1] ?? '')
    .split(',')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
}
const API_PROCESSES = counts('--api-processes');
/** --profile DIR: the shapes' API and worker processes write V8 CPU profiles there (node --cpu-prof). */
const PROFILE_DIR = process.argv.includes('--profile')
  ? process.argv[process.argv.indexOf('--profile') + 1]
  : undefined;
const nodeFlags = PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] : [];
const WORKERS = counts('--workers');
/** --intents K: transfer intents after the prepared submissions (default N/2; 0 skips the phase). */
const INTENTS = process.argv.includes('--intents')
  ? Number(process.argv[process.argv.indexOf('--intents') + 1])
  : Math.floor(N / 2);
if (!Number.isSafeInteger(INTENTS) || INTENTS < 0)
  throw new Error('--intents takes a number (0 skips the phase)');
/** Sending parties of the intents phase (their holdings are picked concurrently, reserved per intent). */
const INTENT_SENDERS = 16;
/**
 * --warmup K: each shape's new processes first commit K transactions, unmeasured (default 1000; 0 measures them
 * cold), so the CPU per transaction is that of JIT-compiled code at saturation, not of a process's first seconds.
 */
const WARMUP = process.argv.includes('--warmup')
  ? Number(process.argv[process.argv.indexOf('--warmup') + 1])
  : 1000;
if (!Number.isSafeInteger(WARMUP) || WARMUP < 0) throw new Error('--warmup takes a number (0 measures cold)');
const INTENT_RECEIVERS = 4;
const SHAPES = API_PROCESSES !== undefined || WORKERS !== undefined;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

async function pool<T>(items: T[], n: number, run: (t: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        await run(items[i] as T, i);
      }
    }),
  );
}

/**
 * The callers' HTTP client: node:http over keep-alive connections. It shares a thread with Quill here, and
 * fetch would spend more CPU than the requests it times. Idle connections are dropped after 4 s, before the
 * server's 5 s keep-alive timeout closes them under a request just being sent.
 */
const callers = new Agent({ keepAlive: true, timeout: 4000 });
function post(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      agent: callers,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.end(body);
  });
}

/**
 * A submission as a custody backend sends it: with an Idempotency-Key, sent again (same key) when the connection
 * dropped before an answer. Pushes the latency, from the first send, onto `latencies`; throws on any answer but
 * 202 or 200.
 */
function submitter(
  baseUrl: string,
  token: string,
  path = '/wallet/v1/submissions',
  /** When given, a 4xx answer is counted here by its error code instead of thrown. */
  refused?: Map<string, number>,
) {
  return async (p: unknown, latencies?: number[]): Promise<void> => {
    const started = performance.now();
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    };
    for (let attempt = 1; ; attempt++) {
      try {
        const { status, text } = await post(`${baseUrl}${path}`, headers, JSON.stringify(p));
        latencies?.push(performance.now() - started);
        if (refused && status >= 400 && status < 500) {
          const code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? `HTTP ${status}`;
          refused.set(code, (refused.get(code) ?? 0) + 1);
          return;
        }
        if (status !== 202 && status !== 200)
          throw new Error(`accept answered ${status}: ${text.slice(0, 300)}`);
        return;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (attempt >= 3 || (code !== 'ECONNRESET' && code !== 'EPIPE')) throw err;
      }
    }
  };
}

/**
 * Open loop: `callers` callers share a fixed offered rate, item i due at i / rate seconds, each caller sending its
 * items in turn. A latency counts from when the item was due, so time spent waiting behind a slow answer counts
 * too (no coordinated omission). Returns the latencies in ms.
 */
async function openLoop<T>(
  items: T[],
  callers: number,
  perSecond: number,
  send: (item: T) => Promise<void>,
): Promise<number[]> {
  const latencies: number[] = [];
  const t0 = performance.now() + 50;
  await Promise.all(
    Array.from({ length: callers }, async (_, c) => {
      for (let i = c; i < items.length; i += callers) {
        const due = t0 + (i * 1000) / perSecond;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        await send(items[i] as T);
        latencies.push(performance.now() - due);
      }
    }),
  );
  return latencies;
}

/** The share of a shape's measured committed/s that the open-loop phase offers. */
const OFFERED_SHARE = 0.5;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

/**
 * CPU seconds (user + system) a process and its live descendants have used so far, from /proc (Linux); 0 where
 * that cannot be read. Per-process CPU per transaction shows where a shape spends the machine's two cores.
 */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    let ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/)) {
        if (child) ticks += cpuSeconds(Number(child)) * 100;
      }
    }
    return ticks / 100; // USER_HZ
  } catch {
    return 0;
  }
}
const ownCpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Write system calls a process has made so far (/proc/<pid>/io `syscw`; 0 where it cannot be read). */
function writeCalls(pid: number | undefined): number {
  try {
    const io = readFileSync(`/proc/${pid ?? 'self'}/io`, 'utf8');
    return Number(/^syscw: (\d+)$/m.exec(io)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Starts a CPU meter over named processes (`bench` is this one; a pid not known counts 0); `perTx(n)` gives
 * "name X.XX ms, …" per transaction, then the write system calls per transaction of each Quill process (a count
 * the machine's load does not change, unlike CPU time).
 */
function cpuMeter(processes: Record<string, number | undefined | (number | undefined)[]>) {
  const pidsOf = (name: string) => [processes[name]].flat();
  const read = () =>
    Object.fromEntries(
      Object.keys(processes).map((name) => [
        name,
        name === 'bench'
          ? ownCpuSeconds()
          : pidsOf(name).reduce<number>((sum, pid) => sum + cpuSeconds(pid), 0),
      ]),
    );
  const quill = Object.keys(processes).filter((name) => name === 'api' || name === 'workers');
  const writes = () =>
    Object.fromEntries(
      quill.map((name) => [name, pidsOf(name).reduce<number>((sum, pid) => sum + writeCalls(pid), 0)]),
    );
  const start = read();
  const startWrites = writes();
  return {
    perTx(n: number): string {
      const end = read();
      const endWrites = writes();
      const parts = Object.keys(processes).map(
        (name) => [name, ((end[name]! - start[name]!) * 1000) / n] as const,
      );
      const total = parts.reduce((sum, [, ms]) => sum + ms, 0);
      // Quill's own share (issue 32's measure): the API, the workers and Redis, not the sandbox or the callers.
      const own = parts.filter(([name]) => ['api', 'workers', 'redis'].includes(name));
      const ownLine =
        quill.length > 0 ? `; Quill's own ${own.reduce((sum, [, ms]) => sum + ms, 0).toFixed(2)} ms` : '';
      const writeLine = quill
        .map((name) => `${name} ${((endWrites[name]! - startWrites[name]!) / n).toFixed(1)}`)
        .join(', ');
      return (
        `CPU per transaction ${total.toFixed(2)} ms (${parts.map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', ')})${ownLine}` +
        (writeLine ? `; write calls per transaction: ${writeLine}` : '')
      );
    },
  };
}

/** `quill sandbox` as a child process, once it answers /livez. */
async function sandboxProcess(): Promise<{ url: string; pid?: number; close(): Promise<void> }> {
  const [port, scanPort] = [await freePort(), await freePort()];
  const child = spawn(
    process.execPath,
    ['bin/quill.js', 'sandbox', '--port', String(port), '--scan-port', String(scanPort), '--no-auth'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  process.on('exit', () => child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) throw new Error(`quill sandbox exited with ${child.exitCode}`);
    const up = await fetch(`${url}/livez`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) {
      return {
        url,
        ...(child.pid !== undefined ? { pid: child.pid } : {}),
        close: async () => {
          child.kill('SIGTERM');
        },
      };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('quill sandbox did not start within 30 s');
}

async function main(): Promise<void> {
  let redis: ChildProcess | undefined;
  let redisDir: string | undefined;
  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    const port = await freePort();
    redisDir = mkdtempSync(join(tmpdir(), 'quill-bench-redis-'));
    redis = spawn(
      'redis-server',
      ['--port', String(port), '--save', '', '--appendonly', 'no', '--dir', redisDir],
      {
        stdio: 'ignore',
      },
    );
    await new Promise((r) => setTimeout(r, 300));
    redisUrl = `redis://127.0.0.1:${port}`;
  }
  const sandbox = IN_PROCESS
    ? await startSandbox({ port: 0, scanPort: 0, host: '127.0.0.1', auth: 'none' })
    : await sandboxProcess();
  const client = new LedgerClient({ baseUrl: sandbox.url, timeoutMs: 30_000 });
  const keysDir = mkdtempSync(join(tmpdir(), 'quill-bench-keys-'));
  const keys = new KeyStore({ dir: keysDir, passphrase: 'bench', scrypt: { N: 1024 } });
  const signer = verifyingSigner(keys);
  const registry = new PartyRegistry({ dir: keysDir });
  const key = await keys.generate('ed25519');
  const party = await onboardExternalParty({
    ledger: client,
    signer,
    keys,
    registry,
    keyFingerprint: key.fingerprint,
    partyHint: 'bench',
  });

  const prepareMany = async (n: number) => {
    const out: {
      preparedTransaction: string;
      preparedTransactionHash: string;
      hashingSchemeVersion: string;
    }[] = [];
    await pool(Array.from({ length: n }), 16, async () => {
      const p = await client.prepare({
        userId: 'bench',
        commandId: randomUUID(),
        actAs: [party.partyId],
        synchronizerId: party.synchronizerId,
        packageIdSelectionPreference: [],
        commands: [
          {
            CreateCommand: {
              templateId: '#bench:Bench:Note',
              createArguments: { owner: party.partyId, n: '1' },
            },
          },
        ],
      } as never);
      out.push({
        preparedTransaction: p.preparedTransaction,
        preparedTransactionHash: p.preparedTransactionHash,
        hashingSchemeVersion: p.hashingSchemeVersion,
      });
    });
    return out;
  };

  // Baseline: sign and execute directly, no queue, no store.
  const direct = await prepareMany(N);
  const sandboxPid = 'pid' in sandbox ? sandbox.pid : undefined;
  const directCpu = cpuMeter({ bench: undefined, sandbox: sandboxPid, redis: redis?.pid });
  let t0 = performance.now();
  await pool(direct, CONCURRENCY, async (p) => {
    const sig = await signer.sign(
      key.fingerprint,
      new Uint8Array(Buffer.from(p.preparedTransactionHash, 'base64')),
    );
    await client.executeAndWaitForTransaction({
      preparedTransaction: p.preparedTransaction,
      partySignatures: { signatures: [{ party: party.partyId, signatures: [sig] }] },
      submissionId: randomUUID(),
      userId: 'bench',
      hashingSchemeVersion: p.hashingSchemeVersion,
      deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 600, nanos: 0 } } },
    } as never);
  });
  const directSecs = (performance.now() - t0) / 1000;
  const directCpuLine = directCpu.perTx(N);

  // Quill: API accept (timed per request) → queue → worker → ledger, until every record is committed.
  const secret = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
  if (SHAPES) {
    await shapes({
      redisUrl,
      sandboxUrl: sandbox.url,
      keysDir,
      secret,
      prepareMany,
      directRate: N / directSecs,
      directCpuLine,
      pids: { sandbox: sandboxPid, redis: redis?.pid },
    });
    callers.destroy();
    await sandbox.close();
    redis?.kill('SIGTERM');
    if (redisDir) rmSync(redisDir, { recursive: true, force: true });
    rmSync(keysDir, { recursive: true, force: true });
    return;
  }
  // The intents phase needs the registries' URLs and, for the holdings Quill picks, the watcher's index (in this
  // process: with --split the worker process would run the watcher over another party registry).
  const intents = INTENTS > 0 && !SPLIT;
  const funding = intents ? await sandboxFunding(sandbox) : undefined;
  const baseConfig = loadConfig({
    PORT: '0', // any free port
    HOST: '127.0.0.1',
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `bench-${Date.now()}`,
    AUTH_JWT_SECRET: secret,
    WORKER_CONCURRENCY: String(CONCURRENCY),
    LEDGER_USER_ID: 'bench', // the sandbox runs without auth, which refuses an empty userId
  });
  const config = funding
    ? {
        ...baseConfig,
        intents: {
          ...baseConfig.intents,
          registries: Object.fromEntries(
            Object.values(funding.registries).map((r) => [r.admin, r.registryUrl]),
          ),
        },
      }
    : baseConfig;
  /** The parties the watcher follows: none until the intents phase, so the first phase runs as it always has. */
  let followed: string[] = [];
  let child: ChildProcess | undefined;
  if (SPLIT) {
    child = spawn(process.execPath, ['bin/quill.js', 'serve', '--role', 'worker'], {
      stdio: 'inherit',
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LEDGER_URL: sandbox.url,
        LEDGER_USER_ID: 'bench',
        REDIS_URL: redisUrl,
        REDIS_PREFIX: config.redisPrefix,
        WORKER_CONCURRENCY: String(CONCURRENCY),
        LOG_LEVEL: 'warn',
      },
    });
  }
  const wallet = await startWallet({
    config,
    role: SPLIT ? 'api' : 'all',
    ledger: ledgerPort(client),
    auth: (await import('../src/auth/index.ts')).createVerifier(config.auth),
    keys: new Keyring([keys]),
    signer,
    parties: { keyOf: async (p) => (await registry.get(p))?.keyFingerprint },
    // The index of the senders' holdings, and USDQ valued (Amulet's recognizers are built in).
    ...(intents
      ? { watch: { ledger: client, parties: async () => followed }, recognizers: SANDBOX_RECOGNIZERS }
      : {}),
  });
  const token = await issueToken({ secret, role: 'submit', ttlSeconds: 3600 });
  const submit = submitter(wallet.url as string, token);
  /** The errors of the records that did not commit, counted by code and message (printed once each). */
  const reported = new Set<string>();
  const whyNotCommitted = async () => {
    const seen = new Map<string, number>();
    for (const status of ['rejected', 'expired'] as const)
      for (const id of await wallet.store.idsInStatus(status)) {
        if (reported.has(id)) continue;
        reported.add(id);
        const e = (await wallet.store.getRecord(id))?.error;
        const why = `${status}: ${e ? `${e.code}: ${e.message}` : 'no error recorded'}`.slice(0, 300);
        seen.set(why, (seen.get(why) ?? 0) + 1);
      }
    for (const [why, n] of seen) console.log(`  ${n}× ${why}`);
    // Intents that picked a holding another record also spent: the one that loses is refused by the ledger.
    const ids = [
      ...(await wallet.store.idsInStatus('committed', 1_000_000)),
      ...(await wallet.store.idsInStatus('rejected', 1_000_000)),
    ];
    const spentBy = new Map<string, string[]>();
    for (const id of ids) {
      const intent = (await wallet.store.getRecord(id))?.intent;
      for (const cid of intent?.kind === 'transfer' ? intent.inputHoldingCids : [])
        spentBy.set(cid, [...(spentBy.get(cid) ?? []), id]);
    }
    const twice = [...spentBy.values()].filter((recs) => recs.length > 1);
    if (twice.length > 0)
      console.log(`  ${twice.length} holdings were picked by two intents (e.g. ${twice[0]?.join(' and ')})`);
  };
  const allDone = async (n: number) => {
    for (;;) {
      const c = await wallet.store.countByStatus();
      if (c.committed + c.rejected + c.expired >= n) {
        if (c.committed !== n) {
          console.log(`warning: ${c.rejected} rejected, ${c.expired} expired`);
          await whyNotCommitted();
        }
        return;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  // Throughput: many callers at once, until every record is committed.
  const viaQuill = await prepareMany(N);
  const loaded: number[] = [];
  t0 = performance.now();
  await pool(viaQuill, CONCURRENCY, (p) => submit(p, loaded));
  const acceptSecs = (performance.now() - t0) / 1000;
  await allDone(N);
  const quillSecs = (performance.now() - t0) / 1000;
  // Accept latency as one custody backend sees it: a few callers, the worker busy with their work.
  const M = Math.max(200, Math.floor(N / 4));
  const paced = await prepareMany(M);
  const latencies: number[] = [];
  await pool(paced, 4, (p) => submit(p, latencies));
  await allDone(N + M);

  // Intents: parties funded first (one fresh holding per intent), their holdings indexed, then the same callers.
  let intentLine: string[] = [];
  if (funding) {
    const onboard = async (hint: string) => {
      const k = await keys.generate('ed25519');
      return (
        await onboardExternalParty({
          ledger: client,
          signer,
          keys,
          registry,
          keyFingerprint: k.fingerprint,
          partyHint: hint,
        })
      ).partyId;
    };
    const senders: string[] = [];
    const receivers: string[] = [];
    for (let i = 0; i < INTENT_SENDERS; i++) senders.push(await onboard(`sender${i}`));
    for (let i = 0; i < INTENT_RECEIVERS; i++) receivers.push(await onboard(`receiver${i}`));
    const plan = planIntents(INTENTS, senders, receivers, ['usdq', 'amulet']);
    await fund(plan, funding);
    followed = senders;
    await untilIndexed(plan, funding.registries, (p) => wallet.history.holdings(p));
    const bodies = Array.from({ length: INTENTS }, (_, i) => intentBody(plan, funding.registries, i));
    // A refused intent (a 4xx: nothing signed, no record) is counted, not fatal: the phase measures the others.
    const refused = new Map<string, number>();
    const transfer = submitter(wallet.url as string, token, '/wallet/v1/transfers', refused);
    const intentLatencies: number[] = [];
    t0 = performance.now();
    await pool(bodies, CONCURRENCY, (b) => transfer(b, intentLatencies));
    const refusedCount = [...refused.values()].reduce((a, b) => a + b, 0);
    await allDone(N + M + INTENTS - refusedCount);
    const secs = (performance.now() - t0) / 1000;
    const committed = (await wallet.store.countByStatus()).committed - (N + M);
    const intentRate = committed / secs;
    const quill = N / quillSecs;
    intentLine = [
      ...(committed < INTENTS
        ? [
            `  intents not committed: ${INTENTS - committed} of ${INTENTS}` +
              (refusedCount > 0
                ? ` (refused: ${[...refused].map(([c, n]) => `${n}× ${c}`).join(', ')})`
                : ''),
          ]
        : []),
      `  intents (end to end)        ${intentRate.toFixed(0).padStart(6)} committed/s   ratio ${(intentRate / quill).toFixed(2)} to prepared submissions, ${(intentRate / (N / directSecs)).toFixed(2)} to direct`,
      `  intent accept latency, ${CONCURRENCY} callers  p50 ${pct(intentLatencies, 50).toFixed(1)} ms   p99 ${pct(intentLatencies, 99).toFixed(1)} ms   (${INTENTS} transfers of USDQ and Amulet from ${INTENT_SENDERS} parties)`,
    ];
  }

  const directRate = N / directSecs;
  const quillRate = N / quillSecs;
  console.log(
    `pipeline benchmark, ${N} transactions, concurrency ${CONCURRENCY}, ${IN_PROCESS ? "sandbox on the callers' thread" : 'sandbox in its own process'}, ${SPLIT ? 'worker in its own process' : 'API and worker in one process'}, Node ${process.version}`,
  );
  console.log(`  direct execute (no queue)   ${directRate.toFixed(0).padStart(6)} committed/s`);
  console.log(
    `  through Quill (end to end)  ${quillRate.toFixed(0).padStart(6)} committed/s   ratio ${(quillRate / directRate).toFixed(2)}`,
  );
  console.log(`  accept only                 ${(N / acceptSecs).toFixed(0).padStart(6)} accepted/s`);
  console.log(
    `  accept latency, 4 callers   p50 ${pct(latencies, 50).toFixed(1)} ms   p99 ${pct(latencies, 99).toFixed(1)} ms`,
  );
  console.log(
    `  accept latency, ${CONCURRENCY} callers  p50 ${pct(loaded, 50).toFixed(1)} ms   p99 ${pct(loaded, 99).toFixed(1)} ms`,
  );
  for (const line of intentLine) console.log(line);
  if (INTENTS > 0 && SPLIT)
    console.log('  intents: not run with --split (the index is written by the worker process)');
  console.log(`  goal: >= 300 committed/s and accept p99 < 25 ms`);

  callers.destroy();
  await wallet.close();
  child?.kill('SIGTERM');
  await sandbox.close();
  redis?.kill('SIGTERM');
  if (redisDir) rmSync(redisDir, { recursive: true, force: true });
  rmSync(keysDir, { recursive: true, force: true });
}

type Prepared = {
  preparedTransaction: string;
  preparedTransactionHash: string;
  hashingSchemeVersion: string;
};

/** The (K API processes, M workers) matrix, each shape as real processes on a prefix of its own. */
async function shapes(o: {
  redisUrl: string;
  sandboxUrl: string;
  keysDir: string;
  secret: string;
  prepareMany: (n: number) => Promise<Prepared[]>;
  directRate: number;
  directCpuLine: string;
  pids: { sandbox: number | undefined; redis: number | undefined };
}): Promise<void> {
  const rows: string[] = [];
  const token = await issueToken({ secret: o.secret, role: 'submit', ttlSeconds: 3600 });
  const { Redis } = await import('ioredis');
  const { SubmissionStore } = await import('../src/submissions/index.ts');
  const redis = new Redis(o.redisUrl);
  for (const k of API_PROCESSES ?? [1, 2]) {
    for (const m of WORKERS ?? [1, 2]) {
      const prefix = `shape-${k}-${m}-${Date.now()}`;
      const port = await freePort();
      const env = {
        ...process.env,
        HOST: '127.0.0.1',
        LEDGER_URL: o.sandboxUrl,
        LEDGER_USER_ID: 'bench',
        REDIS_URL: o.redisUrl,
        REDIS_PREFIX: prefix,
        AUTH_JWT_SECRET: o.secret,
        KEYS_DIR: o.keysDir,
        KEYSTORE_PASSPHRASE: 'bench',
        WORKER_CONCURRENCY: String(CONCURRENCY),
        LOG_LEVEL: 'warn',
        CONSOLE_ENABLED: 'false',
        // One token offers everything here: the per-token limiter still counts each accept, but it must not refuse
        // the bursts a fast machine reaches (over 1,000 accepts in a second at 64 callers).
        ACCEPT_RATE_LIMIT: '1000000',
      };
      const children: ChildProcess[] = [
        spawn(
          process.execPath,
          [...nodeFlags, 'bin/quill.js', 'serve', '--role', 'api', '--processes', String(k)],
          {
            stdio: ['ignore', 'ignore', 'inherit'],
            env: { ...env, PORT: String(port) },
          },
        ),
      ];
      for (let i = 0; i < m; i++)
        children.push(
          spawn(process.execPath, [...nodeFlags, 'bin/quill.js', 'serve', '--role', 'worker'], {
            stdio: ['ignore', 'ignore', 'inherit'],
            env: { ...env, PORT: '0' },
          }),
        );
      // A benchmark that fails must not leave the shape's processes behind.
      process.on('exit', () => {
        for (const c of children) c.kill('SIGKILL');
      });
      const url = `http://127.0.0.1:${port}`;
      for (let i = 0; i < 300; i++) {
        const ok = await fetch(`${url}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const store = new SubmissionStore(redis, prefix);
      const submit = submitter(url, token);
      const allDone = async (n: number) => {
        for (;;) {
          const c = await store.countByStatus();
          if (c.committed + c.rejected + c.expired >= n) return;
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      if (WARMUP > 0) {
        await pool(await o.prepareMany(WARMUP), CONCURRENCY, (p) => submit(p, []));
        await allDone(WARMUP);
      }
      const load = await o.prepareMany(N);
      const loaded: number[] = [];
      const cpu = cpuMeter({
        bench: undefined,
        api: children[0]?.pid,
        workers: children.slice(1).map((c) => c.pid),
        sandbox: o.pids.sandbox,
        redis: o.pids.redis,
      });
      const t0 = performance.now();
      await pool(load, CONCURRENCY, (p) => submit(p, loaded));
      await allDone(WARMUP + N);
      const rate = N / ((performance.now() - t0) / 1000);
      const cpuLine = cpu.perTx(N);
      const paced = await o.prepareMany(Math.max(200, Math.floor(N / 4)));
      const few: number[] = [];
      await pool(paced, 4, (p) => submit(p, few));
      await allDone(WARMUP + N + paced.length);
      // 64 callers again, now offering a fixed rate below what the shape sustains (open loop).
      const offered = Math.max(1, Math.round(rate * OFFERED_SHARE));
      const scheduled = await o.prepareMany(Math.max(400, Math.floor(N / 2)));
      const open = await openLoop(scheduled, CONCURRENCY, offered, (p) => submit(p));
      await allDone(WARMUP + N + paced.length + scheduled.length);
      for (const c of children) c.kill('SIGTERM');
      await Promise.all(
        children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
      );
      rows.push(
        `  K=${k} M=${m}   ${rate.toFixed(0).padStart(5)} committed/s (${(rate / o.directRate).toFixed(2)}× direct)   ` +
          `4 callers p50 ${pct(few, 50).toFixed(1)} / p99 ${pct(few, 99).toFixed(1)} ms   ` +
          `64 callers p50 ${pct(loaded, 50).toFixed(1)} / p99 ${pct(loaded, 99).toFixed(1)} ms\n` +
          `              64 callers offering ${offered}/s (${OFFERED_SHARE * 100}% of that): accept p50 ${pct(open, 50).toFixed(1)} / p99 ${pct(open, 99).toFixed(1)} ms\n` +
          `              ${cpuLine}`,
      );
      console.log(rows.at(-1));
    }
  }
  redis.disconnect();
  console.log(
    `pipeline shapes, ${N} transactions each after ${WARMUP} unmeasured (--warmup), K API processes (--processes) × M worker processes, Node ${process.version}`,
  );
  console.log(
    `  direct execute (no queue)   ${o.directRate.toFixed(0)} committed/s\n              ${o.directCpuLine}`,
  );
  for (const r of rows) console.log(r);
  console.log('  goal: accept p99 < 25 ms at 64 callers in the best shape, committed/s >= 0.6x direct');
  if (INTENTS > 0)
    console.log('  intents: run without --api-processes/--workers (one wallet in this process)');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
