// Issue #12, finding 1: does one submit token with huge batches starve everyone else? While four batches of
// seven 4.2 M-character prepared transactions (29.5 MB each) are being accepted, this measures `/healthz` p99 and
// a small submission's accept p99 on the same wallet, beside the same probes with no large batch in flight
// (the baseline, same run). Once with the inspection pool (the default) and once inline (INSPECT_THREADS=0).
// The wallet runs as its own process (`quill serve --role api`); the probes and callers run here.
// Run: npm run bench:abuse [-- --units 790000] (REDIS_URL to use an existing Redis; else a private redis-server)
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodePreparedTransactionBase64 } from '@quill/canton/transaction';
import { buildPreparedTransaction, damlValue } from '@quill/sandbox/build';
import { issueToken } from '../src/auth/index.ts';
import { PartyRegistry, partyIdOf } from '../src/parties/index.ts';
import { KeyStore } from '../src/signing/index.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const UNITS = arg('units', 790_000);
const PER_BATCH = 7;
const BATCHES = 4;
const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const PASSPHRASE = 'bench passphrase';
const SYNC = 'global-synchronizer::1220aaaa';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
function call(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      agent,
      headers: body ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
    });
    req.end(body);
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

function prepared(party: string, units: number): string {
  const tx = buildPreparedTransaction({
    roots: [
      {
        kind: 'create',
        contractId: `00${randomUUID().replaceAll('-', '').repeat(2)}`,
        packageName: 'quill-test',
        templateId: `${'ab'.repeat(32)}:Test:Thing`,
        argument: damlValue.record({
          owner: damlValue.party(party),
          ...(units ? { items: damlValue.list(Array.from({ length: units }, damlValue.unit)) } : {}),
        }),
        signatories: [party],
      },
    ],
    actAs: [party],
    commandId: randomUUID(),
    synchronizerId: SYNC,
    preparationTime: new Date(),
  });
  return encodePreparedTransactionBase64(tx);
}

/** Peak resident memory of a process, from /proc (MB), or NaN where there is no /proc. */
function peakRssMb(pid: number | undefined): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

interface Sample {
  healthz: number[];
  small: number[];
  smallStatuses: Map<number, number>;
}

/** Probes /healthz and accepts small submissions, one at a time each, until `done` resolves. */
async function probe(url: string, auth: Record<string, string>, party: string, done: Promise<unknown>) {
  const s: Sample = { healthz: [], small: [], smallStatuses: new Map() };
  let stop = false;
  void done.finally(() => {
    stop = true;
  });
  const health = (async () => {
    while (!stop) {
      s.healthz.push((await call(`${url}/healthz`, 'GET', {})).ms);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const small = (async () => {
    while (!stop) {
      const body = JSON.stringify({
        preparedTransaction: prepared(party, 0),
        hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
      });
      const r = await call(`${url}/wallet/v1/submissions`, 'POST', auth, body);
      s.small.push(r.ms);
      s.smallStatuses.set(r.status, (s.smallStatuses.get(r.status) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  await Promise.all([health, small]);
  return s;
}

async function startWalletProcess(
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/quill.js', 'serve', '--role', 'api'], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`the wallet exited with ${child.exitCode}`);
    if ((await call(`${url}/healthz`, 'GET', {}).catch(() => ({ status: 0 }))).status === 200)
      return { url, child };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the wallet did not start');
}

async function main(): Promise<void> {
  let redisUrl = process.env.REDIS_URL;
  let redis: ChildProcess | undefined;
  if (!redisUrl) {
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    redisUrl = `redis://127.0.0.1:${port}`;
    await new Promise((r) => setTimeout(r, 300));
  }
  const dir = mkdtempSync(join(tmpdir(), 'quill-abuse-'));
  try {
    const keys = new KeyStore({ dir, passphrase: PASSPHRASE, scrypt: { N: 1024 } });
    const key = await keys.generate('ed25519', 'bench');
    const party = partyIdOf('bench', key.fingerprint);
    await new PartyRegistry({ dir }).add({
      partyId: party,
      keyFingerprint: key.fingerprint,
      synchronizerId: SYNC,
      createdAt: new Date().toISOString(),
    });
    const token = await issueToken({ secret: SECRET, role: 'submit', party, ttlSeconds: 3600 });
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    process.stdout.write(`building ${PER_BATCH} transactions of ${UNITS} units … `);
    const large = Array.from({ length: PER_BATCH }, () => prepared(party, UNITS));
    const batchBody = JSON.stringify({
      submissions: large.map((preparedTransaction) => ({
        preparedTransaction,
        hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
      })),
    });
    console.log(
      `${(large[0]?.length ?? 0) / 1e6} M characters each, batch ${(batchBody.length / 1e6).toFixed(1)} MB`,
    );

    const rows: string[][] = [];
    for (const [shape, threads] of [
      ['pool', undefined],
      ['inline', '0'],
    ] as const) {
      const { url, child } = await startWalletProcess({
        REDIS_URL: redisUrl,
        REDIS_PREFIX: `abuse-${shape}-${Date.now()}`,
        KEYS_DIR: dir,
        KEYSTORE_PASSPHRASE: PASSPHRASE,
        KEYSTORE_SCRYPT_N: '1024',
        AUTH_JWT_SECRET: SECRET,
        LEDGER_URL: 'http://127.0.0.1:9',
        ACCEPT_RATE_LIMIT: '0',
        ...(threads !== undefined ? { INSPECT_THREADS: threads } : {}),
      });
      try {
        // Warm up (JIT, the inspection thread), then the quiet baseline, then under load.
        await probe(url, auth, party, new Promise((r) => setTimeout(r, 1000)));
        const quiet = await probe(url, auth, party, new Promise((r) => setTimeout(r, 3000)));
        const t0 = performance.now();
        const batches = Promise.all(
          Array.from({ length: BATCHES }, () =>
            call(`${url}/wallet/v1/submissions/batch`, 'POST', auth, batchBody),
          ),
        );
        const loaded = await probe(url, auth, party, batches);
        const batchMs = performance.now() - t0;
        const statuses = (await batches).map((b) => b.status).join(',');
        const rss = peakRssMb(child.pid);
        for (const [phase, s] of [
          ['quiet', quiet],
          ['4 large batches', loaded],
        ] as const) {
          rows.push([
            shape,
            phase,
            `${pct(s.healthz, 50).toFixed(1)} / ${pct(s.healthz, 99).toFixed(1)}`,
            `${pct(s.small, 50).toFixed(1)} / ${pct(s.small, 99).toFixed(1)}`,
            [...s.smallStatuses].map(([k, v]) => `${k}×${v}`).join(' '),
            phase === 'quiet' ? '' : `${(batchMs / 1000).toFixed(1)} s (${statuses})`,
            phase === 'quiet' ? '' : rss.toFixed(0),
          ]);
        }
        const ratio = pct(loaded.healthz, 99) / Math.max(pct(quiet.healthz, 99), 0.1);
        const ratioSmall = pct(loaded.small, 99) / Math.max(pct(quiet.small, 99), 0.1);
        console.log(
          `${shape}: /healthz p99 under load ${ratio.toFixed(1)}× quiet, small accept p99 ${ratioSmall.toFixed(1)}× quiet`,
        );
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    }
    console.log(
      '\n| wallet | phase | /healthz p50 / p99 ms | small accept p50 / p99 ms | small statuses | batches | peak RSS MB |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    redis?.kill();
    agent.destroy();
  }
}

await main();
