// The demo ready for integrators (issue 31 item 6): `npm start` (quill serve --demo) listens on loopback only, writes
// .demo/env, and says `source .demo/env` in its banner; in a bash shell that sourced it, `quill keys list` and
// `quill events tail --max 1` work at once (the tail ends with the event of the demo's submission). Webhooks to
// loopback are allowed in the demo, other private targets still refused.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/redis-global-setup.ts';
import { tempDir } from '../../support/tmp.ts';

const QUILL = resolve('bin/quill.js');
const VARS = [
  'QUILL_URL',
  'QUILL_TOKEN',
  'AUTH_JWT_SECRET_FILE',
  'KEYS_DIR',
  'KEYSTORE_PASSPHRASE_FILE',
  'REDIS_URL',
  'REDIS_PREFIX',
  'LEDGER_URL',
];

let demo: ChildProcess;
const out = { stdout: '', stderr: '' };
let cwd = '';
let port = 0;
/** What the demo was started with beside PATH and HOME (ports, the Redis URL). */
let startEnv: Record<string, string> = {};

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${out.stderr.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs a bash script in the demo's folder with a bare environment (no variable of the demo's). */
function bash(script: string, timeoutMs = 60_000) {
  const r = spawnSync('bash', ['-c', script], {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { PATH: process.env.PATH ?? '', HOME: cwd },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  cwd = tempDir('quill-demo-env-');
  port = await freePort();
  startEnv = {
    // No Redis there: the demo starts its own (redis-server is on PATH), so nothing else shares its state.
    REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
    PORT: String(port),
    SANDBOX_PORT: String(await freePort()),
    SANDBOX_SCAN_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  };
  await startDemo(process.execPath, [QUILL, 'serve', '--demo'], startEnv);
}, 120_000);

async function startDemo(command: string, args: string[], env: Record<string, string>) {
  out.stdout = '';
  out.stderr = '';
  demo = spawn(command, args, { cwd, env: { HOME: cwd, PATH: process.env.PATH ?? '', ...env } });
  demo.stdout?.on('data', (d) => (out.stdout += d));
  demo.stderr?.on('data', (d) => (out.stderr += d));
  await until(() => out.stdout.includes('source .demo/env'), 90_000, 'the demo banner');
}

async function stopDemo() {
  if (demo && demo.exitCode === null) {
    const closed = new Promise((r) => demo.on('close', r));
    demo.kill('SIGTERM');
    await closed;
  }
}

afterAll(stopDemo);

describe('npm start for integrators', () => {
  it('says to source .demo/env, which exports what the CLI reads, readable by its owner only', () => {
    expect(out.stdout).toContain('source .demo/env && quill keys list && quill events tail --max 1');
    const file = join(cwd, '.demo', 'env');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    for (const v of VARS) expect(text, v).toMatch(new RegExp(`^export ${v}='[^']+'$`, 'm'));
    expect(text).toContain(`export QUILL_URL='http://127.0.0.1:${port}'`);
    // Secrets stay in their files: the env file names them, and holds neither the auth secret nor the passphrase.
    const secret = readFileSync(join(cwd, '.demo', 'auth-secret'), 'utf8').trim();
    const passphrase = readFileSync(join(cwd, '.demo', 'keystore-passphrase'), 'utf8').trim();
    expect(text).not.toContain(secret);
    expect(text).not.toContain(passphrase);
  });

  it('listens on loopback only', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
    const other = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal);
    if (other) await expect(fetch(`http://${other.address}:${port}/healthz`)).rejects.toThrow();
  });

  // Three CLI starts (tsx compiles the CLI each time: well over 10 s on a loaded 2-core CI machine) and a commit;
  // the script's own limit (60 s) is the one that counts.
  it('source .demo/env, then quill keys list and quill events tail --max 1 work', { timeout: 90_000 }, () => {
    const r = bash(
      [
        'set -euo pipefail',
        'source .demo/env',
        'quill keys list > keys.out',
        // The tail follows from now on: it ends at the first event, the demo submission's.
        'quill events tail --max 1 > tail.out & tail=$!',
        'for i in $(seq 1 200); do',
        // Read whole before grep: `grep -q` quits at its match, and under pipefail curl's broken pipe would fail it.
        '  curl -s "$QUILL_URL/metrics" -o metrics.out && grep -q "^quill_event_streams_open 1" metrics.out && break',
        '  sleep 0.1',
        'done',
        'curl -sf -X POST "$QUILL_URL/wallet/v1/submissions?wait=10" -H "authorization: Bearer $QUILL_TOKEN" \\',
        '  -H "content-type: application/json" --data @.demo/submission.json > submit.out',
        'wait "$tail"',
      ].join('\n'),
    );
    expect(r.code, r.stderr).toBe(0);
    const keys = readFileSync(join(cwd, 'keys.out'), 'utf8');
    expect(keys.split('\n').filter((l) => l.trim() !== '').length).toBeGreaterThanOrEqual(3); // demo, receiver, audit
    const submitted = JSON.parse(readFileSync(join(cwd, 'submit.out'), 'utf8')) as {
      id: string;
      status: string;
    };
    expect(submitted.status).toBe('committed');
    const lines = readFileSync(join(cwd, 'tail.out'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    const event = JSON.parse(lines[0] as string) as { type: string; body: { id?: string } };
    expect(event.type).toMatch(/^submission\./);
  });

  it('lets the CLI sign with the demo secret from its file (AUTH_JWT_SECRET_FILE)', () => {
    const r = bash('source .demo/env && quill tokens issue --role read --ttl 5m');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('accepts a webhook on loopback and still refuses other private targets', async () => {
    const token = /^export QUILL_TOKEN='([^']+)'$/m.exec(
      readFileSync(join(cwd, '.demo', 'env'), 'utf8'),
    )?.[1];
    const hook = (url: string) =>
      fetch(`http://127.0.0.1:${port}/wallet/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
      });
    expect((await hook('http://127.0.0.1:9/hook')).status).toBe(201);
    const refused = await hook('http://10.1.2.3/hook');
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('PRIVATE_TARGET');
  });

  it("starts again from a shell that sourced .demo/env (its LEDGER_URL and KEYS_DIR are the demo's own)", async () => {
    await stopDemo();
    // PORT and the sandbox's ports are not the CLI's: given as before, the rest comes from .demo/env.
    const { REDIS_URL: _, ...ports } = startEnv;
    await startDemo('bash', ['-c', `source .demo/env && exec node '${QUILL}' serve --demo`], ports);
    expect(out.stdout).toContain('Quill demo is running.');
    const r = bash('source .demo/env && quill keys list && quill parties list');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('demo-receiver::');
  }, 120_000);
});
