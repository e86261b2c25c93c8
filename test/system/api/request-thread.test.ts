// Issue 29 item 10 (finding F12): nothing large runs on the request thread. While two batches of seven 1.6 MB
// prepared transactions are accepted, and while a 6 MB stored transaction's preview is read, `/healthz` answers in
// under 100 ms. The wallet is its own process (`quill serve --role api`), so what this file does to send and
// read the load does not count against the wallet's thread; /healthz is probed one call at a time, every ~10 ms.
import { type ChildProcess, spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { issueToken } from '../../../src/auth/index.ts';
import { PartyRegistry, partyIdOf } from '../../../src/parties/index.ts';
import { KeyStore } from '../../../src/signing/index.ts';
import { prepared } from '../../support/api-harness.ts';
import { freePort } from '../../support/redis-global-setup.ts';
import { tempDir } from '../../support/tmp.ts';

const SECRET = 'thread-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const PASSPHRASE = 'a passphrase for the test';
const SYNC = 'global-synchronizer::1220aaaa';
const V2 = 'HASHING_SCHEME_VERSION_V2';
/** The bound on a quiet machine. CI runs two test files at once on two cores, so it asserts a looser one (still a
 * fraction of the 1-2.5 s the thread was held before); every run prints the worst answer. */
const BOUND_MS = process.env.CI ? 500 : 100;
/** Node flags for the wallet's process when looking into a failure, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p` or
 * `--trace-gc` (its stdout is shown then). */
const NODE_ARGS = (process.env.REQUEST_THREAD_NODE_ARGS ?? '').split(' ').filter(Boolean);

const load = new Agent({ keepAlive: true, maxSockets: 16 });
const probes = new Agent({ keepAlive: true, maxSockets: 1 });

/** One call; the answer's body is read as bytes and parsed only when asked. */
function call(
  url: string,
  opts: { method?: string; token?: string; body?: Buffer; agent?: Agent; parse?: boolean } = {},
): Promise<{ status: number; ms: number; bytes: number; json?: unknown }> {
  const t0 = performance.now();
  return new Promise((done, fail) => {
    const req = request(url, {
      method: opts.method ?? 'GET',
      agent: opts.agent ?? load,
      headers: {
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(opts.body ? { 'content-type': 'application/json', 'content-length': opts.body.length } : {}),
      },
    });
    req.on('error', fail);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (d: Buffer) => {
        bytes += d.length;
        if (opts.parse) chunks.push(d);
      });
      res.on('end', () => {
        const ms = performance.now() - t0;
        const status = res.statusCode ?? 0;
        done({
          status,
          ms,
          bytes,
          ...(opts.parse ? { json: JSON.parse(Buffer.concat(chunks).toString('utf8')) } : {}),
        });
      });
    });
    req.end(opts.body);
  });
}

/** /healthz one call at a time, ~10 ms apart, until `until` settles: every answer's time. */
async function probe(url: string, until: Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  let stop = false;
  void until.finally(() => {
    stop = true;
  });
  while (!stop) {
    const r = await call(`${url}/healthz`, { agent: probes });
    expect(r.status).toBe(200);
    times.push(r.ms);
    await new Promise((r) => setTimeout(r, 10));
  }
  return times;
}

const worst = (xs: number[]) => Math.max(...xs);

describe('the request thread under large bodies', () => {
  let child: ChildProcess;
  let url: string;
  let party: string;
  let submit: string;
  let read: string;
  let stderr = '';

  beforeAll(async () => {
    const dir = tempDir('quill-thread-');
    const keys = new KeyStore({ dir, passphrase: PASSPHRASE, scrypt: { N: 1024 } });
    const key = await keys.generate('ed25519', 'thread');
    party = partyIdOf('thread', key.fingerprint);
    await new PartyRegistry({ dir }).add({
      partyId: party,
      keyFingerprint: key.fingerprint,
      synchronizerId: SYNC,
      createdAt: new Date().toISOString(),
    });
    submit = await issueToken({ secret: SECRET, role: 'submit', party, ttlSeconds: 3600 });
    read = await issueToken({ secret: SECRET, role: 'read', party, ttlSeconds: 3600 });
    const port = await freePort();
    child = spawn(
      process.execPath,
      [
        ...(process.env.THREAD_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.THREAD_PROF}`] : []),
        ...(process.env.THREAD_GC ? ['--trace-gc'] : []),
        resolve('bin/quill.js'),
        'serve',
        '--role',
        'api',
      ],
      {
        env: {
          PATH: process.env.PATH ?? '',
          PORT: String(port),
          HOST: '127.0.0.1',
          REDIS_URL: inject('redisUrl'),
          REDIS_PREFIX: `thread-${port}`,
          KEYS_DIR: dir,
          KEYSTORE_PASSPHRASE: PASSPHRASE,
          KEYSTORE_SCRYPT_N: '1024',
          AUTH_JWT_SECRET: SECRET,
          LEDGER_URL: 'http://127.0.0.1:9', // never reached: nothing here runs the worker role
          LEDGER_USER_ID: 'thread',
          ACCEPT_RATE_LIMIT: '0',
        },
        stdio: ['ignore', NODE_ARGS.length > 0 ? 'inherit' : 'ignore', 'pipe'],
      },
    );
    child.stderr?.on('data', (d) => (stderr += d));
    url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`the wallet exited with ${child.exitCode}: ${stderr}`);
      if ((await call(`${url}/healthz`).catch(() => ({ status: 0 }))).status === 200) break;
      if (i > 300) throw new Error('the wallet did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 60_000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    load.destroy();
    probes.destroy();
  });

  it('two batches of 7 × 1.6 MB transactions: /healthz stays under the bound', async () => {
    const batch = () =>
      Buffer.from(
        JSON.stringify({
          submissions: Array.from({ length: 7 }, () => ({
            preparedTransaction: prepared(party, { units: 300_000 }).body.preparedTransaction,
            hashingSchemeVersion: V2,
          })),
        }),
      );
    const bodies = [batch(), batch()];
    expect(bodies[0]?.length).toBeGreaterThan(7 * 1.6e6);
    // Warm up: the inspection threads start when first needed, and the JIT.
    const warm = await call(`${url}/wallet/v1/submissions/batch`, {
      method: 'POST',
      token: submit,
      body: batch(),
    });
    expect(warm.status).toBe(200);
    const sent = Promise.all(
      bodies.map((body) =>
        call(`${url}/wallet/v1/submissions/batch`, { method: 'POST', token: submit, body, parse: true }),
      ),
    );
    const times = await probe(url, sent);
    const answers = await sent;
    console.log(
      `batches: worst /healthz ${worst(times).toFixed(1)} ms over ${times.length} probes; batches took ${answers.map((a) => a.ms.toFixed(0)).join(', ')} ms`,
    );
    for (const a of answers) {
      expect(a.status).toBe(200);
      const items = (a.json as { items: { status: number }[] }).items;
      expect(items.map((i) => i.status)).toEqual(Array(7).fill(202));
    }
    expect(worst(times)).toBeLessThan(BOUND_MS);
  }, 120_000);

  it("a 6 MB stored transaction's preview: /healthz stays under the bound", async () => {
    const b64 = prepared(party, { units: 1_125_000 }).body.preparedTransaction;
    expect(b64.length).toBeGreaterThan(6e6);
    const body = Buffer.from(JSON.stringify({ preparedTransaction: b64, hashingSchemeVersion: V2 }));
    const accepted = await call(`${url}/wallet/v1/submissions`, {
      method: 'POST',
      token: submit,
      body,
      parse: true,
    });
    expect(accepted.status).toBe(202);
    const id = (accepted.json as { id: string }).id;
    const previewUrl = `${url}/wallet/v1/submissions/${id}/preview`;
    await call(previewUrl, { token: read }); // warm up
    const answer = call(previewUrl, { token: read });
    const times = await probe(url, answer);
    const r = await answer;
    console.log(
      `preview: worst /healthz ${worst(times).toFixed(1)} ms over ${times.length} probes; preview took ${r.ms.toFixed(0)} ms, ${(r.bytes / 1e6).toFixed(1)} MB`,
    );
    expect(r.status).toBe(200);
    expect(worst(times)).toBeLessThan(BOUND_MS);
    // What it answers is the decoded transaction, its hash recomputed.
    const full = await call(previewUrl, { token: read, parse: true });
    expect(full.json).toMatchObject({ id, hashMatches: true });
  }, 120_000);
});
