// Console page latency (p50/p99 of the overview, the submissions list, one submission's page and the rows fragment
// the list polls) beside the wallet API's own answer for the same data, measured in the same run (ratio). The page
// reads through the API in process, so the ratio is what rendering and the session cost on top (the overview is
// set against the Prometheus scrape, which reads the same counts).
// REDIS_URL to use an existing Redis; else a private redis-server. N (default 300) committed submissions first.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerClient } from '@quill/canton/ledger';
import { startSandbox } from '@quill/sandbox';
import { ledgerReads } from '../src/api/ledger-reads.ts';
import { createVerifier, issueToken } from '../src/auth/index.ts';
import { loadConfig } from '../src/config/index.ts';
import { mintLink } from '../src/console/index.tsx';
import { PartyRegistry } from '../src/parties/index.ts';
import { partyServices } from '../src/server/adapters.ts';
import { startWallet } from '../src/server/wallet.ts';
import { Keyring, KeyStore, verifyingSigner } from '../src/signing/index.ts';
import { ledgerPort } from '../src/submissions/ledger.ts';

const N = Number(process.env.N ?? 300);
const ROUNDS = Number(process.env.ROUNDS ?? 200);
const SECRET = randomBytes(32).toString('base64url');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;

async function time(url: string, headers: Record<string, string>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    out.push(performance.now() - t);
  }
  return out;
}

async function main(): Promise<void> {
  let server: ChildProcess | undefined;
  let dir: string | undefined;
  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'quill-bench-redis-'));
    server = spawn(
      'redis-server',
      ['--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir],
      {
        stdio: 'ignore',
      },
    );
    await new Promise((r) => setTimeout(r, 300));
    redisUrl = `redis://127.0.0.1:${port}`;
  }
  const sb = await startSandbox({ port: 0, scanPort: 0, host: '127.0.0.1', auth: 'none' });
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `bench-${randomBytes(3).toString('hex')}`,
    AUTH_JWT_SECRET: SECRET,
    LOG_LEVEL: 'silent',
    LEDGER_USER_ID: 'bench', // the sandbox runs without auth, which refuses an empty userId
  });
  const keysDir = mkdtempSync(join(tmpdir(), 'quill-bench-keys-'));
  const client = new LedgerClient({ baseUrl: sb.url });
  const keys = new Keyring([new KeyStore({ dir: keysDir, passphrase: 'bench', scrypt: { N: 1024 } })]);
  const signer = verifyingSigner(keys);
  const registry = new PartyRegistry({ dir: keysDir });
  const wallet = await startWallet({
    config,
    role: 'all',
    ledger: ledgerPort(client),
    reads: ledgerReads(client, undefined, 'participant_admin'),
    auth: createVerifier(config.auth),
    keys,
    signer,
    parties: partyServices({ registry, ledger: client, signer, keys }),
  });
  const base = wallet.url as string;
  const admin = await issueToken({ secret: SECRET, role: 'admin', ttlSeconds: 3600, subject: 'bench' });
  const api = async (method: string, path: string, body?: unknown) =>
    (await (
      await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      })
    ).json()) as Record<string, unknown>;
  const key = await api('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  const party = (
    await api('POST', '/wallet/v1/parties', { keyFingerprint: key.fingerprint, partyHint: 'bench' })
  ).partyId as string;
  let last = '';
  for (let i = 0; i < N; i++) {
    const p = await client.prepare({
      userId: 'bench',
      commandId: randomUUID(),
      actAs: [party],
      synchronizerId: '',
      packageIdSelectionPreference: [],
      commands: [
        { CreateCommand: { templateId: '#bench:B:Note', createArguments: { owner: party, n: String(i) } } },
      ],
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
    } as never);
    const res = await api('POST', '/wallet/v1/submissions', {
      preparedTransaction: p.preparedTransaction,
      preparedTransactionHash: p.preparedTransactionHash,
      hashingSchemeVersion: p.hashingSchemeVersion,
    });
    if (typeof res.id !== 'string') throw new Error(`submission refused: ${JSON.stringify(res)}`);
    last = res.id;
  }
  // Sign in over HTTP: the session cookie.
  const t = await mintLink(SECRET, { role: 'admin', ttlSeconds: 600 });
  const first = await fetch(`${base}/console/signin?t=${t}`);
  const pre = /name="_pre" value="([^"]+)"/.exec(await first.text())?.[1] ?? '';
  const signedIn = await fetch(`${base}/console/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ t, _pre: pre }),
  });
  const cookie = { cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '' };
  const bearer = { authorization: `Bearer ${admin}` };
  const shapes: [string, string, string][] = [
    ['submissions list (50)', '/console/submissions', '/wallet/v1/submissions?limit=50'],
    ['rows fragment (polled)', '/console/submissions/rows', '/wallet/v1/submissions?limit=50'],
    ['one submission + preview', `/console/submissions/${last}`, `/wallet/v1/submissions/${last}`],
    ['overview (vs /metrics)', '/console', '/metrics'],
  ];
  console.log(
    `console pages, ${ROUNDS} requests each after ${N} submissions (ms; baseline: the API's answer)`,
  );
  console.log('page                       | console p50 / p99 | API p50 / p99 | p50 ratio');
  for (const [name, page, baseline] of shapes) {
    const b = await time(`${base}${baseline}`, bearer);
    const c = await time(`${base}${page}`, cookie);
    const f = (x: number) => x.toFixed(1);
    console.log(
      `${name.padEnd(26)} | ${f(pct(c, 0.5))} / ${f(pct(c, 0.99))} | ${f(pct(b, 0.5))} / ${f(pct(b, 0.99))} | ${(pct(c, 0.5) / pct(b, 0.5)).toFixed(2)}×`,
    );
  }
  await wallet.close();
  await sb.close();
  server?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
  rmSync(keysDir, { recursive: true, force: true });
}

await main();
