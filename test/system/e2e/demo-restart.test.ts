// `npm start` twice in a row (issue 26, bug 6): the embedded ledger starts empty on each run, and so does the
// wallet's demo state in Redis (its private Redis keeps its data in .demo/redis between runs). The second run shows
// nothing of the first one's ledger — no submission, no history entry — and its own demo transaction commits and
// reaches the party's history.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../support/redis-global-setup.ts';
import { tempDir } from '../../support/tmp.ts';

const QUILL = resolve('bin/quill.js');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

function start(env: Record<string, string>, cwd: string) {
  const child = spawn(process.execPath, [QUILL, 'serve', '--demo'], { cwd, env: { HOME: cwd, ...env } });
  children.push(child);
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (d) => (out.stdout += d));
  child.stderr?.on('data', (d) => (out.stderr += d));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, out, exited };
}

async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Demo {
  url: string;
  token: string;
  party: string;
  submit(): Promise<{ status: string; updateId: string | null }>;
  get<T>(path: string): Promise<T>;
}

function demoOf(stdout: string, cwd: string): Demo {
  const curl =
    /curl -s -X POST '([^']+)' -H 'authorization: Bearer ([^']+)' -H 'content-type: application\/json' --data @(\S+)/.exec(
      stdout,
    );
  const party = /demo party {3}(\S+)/.exec(stdout);
  if (!curl || !party) throw new Error(`no demo banner in ${stdout}`);
  const [, url, token, file] = curl as unknown as [string, string, string, string];
  const base = new URL(url).origin;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return {
    url: base,
    token,
    party: party[1]!,
    async submit() {
      const res = await fetch(url, { method: 'POST', headers, body: readFileSync(join(cwd, file), 'utf8') });
      return (await res.json()) as { status: string; updateId: string | null };
    },
    async get<T>(path: string) {
      const res = await fetch(`${base}${path}`, { headers });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
  };
}

const history = (d: Demo) =>
  d
    .get<{ items: { updateId: string }[] }>(`/wallet/v1/parties/${encodeURIComponent(d.party)}/transactions`)
    .then((h) => h.items.map((t) => t.updateId));

describe('npm start twice in a row', () => {
  it('the second run starts over with its empty ledger: nothing of the first, and its own transaction indexed', async () => {
    const cwd = tempDir('quill-restart-');
    const env = {
      PATH: process.env.PATH ?? '',
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      PORT: String(await freePort()),
      SANDBOX_PORT: String(await freePort()),
      SANDBOX_SCAN_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    };
    const first = start(env, cwd);
    await until(() => first.out.stdout.includes('curl -s -X POST'), 60_000, 'the first demo banner');
    const one = demoOf(first.out.stdout, cwd);
    const committed = await one.submit();
    expect(committed.status).toBe('committed');
    const old = committed.updateId!;
    await until(async () => (await history(one)).includes(old), 20_000, 'the first transaction in history');
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = start(env, cwd);
    await until(() => second.out.stdout.includes('curl -s -X POST'), 60_000, 'the second demo banner');
    expect(second.out.stdout).toContain("cleared the wallet's earlier demo state");
    const two = demoOf(second.out.stdout, cwd);
    expect(two.party).toBe(one.party);
    const submissions = await two.get<{ items: { updateId?: string | null }[] }>('/wallet/v1/submissions');
    expect(submissions.items.map((s) => s.updateId)).not.toContain(old);
    const again = await two.submit();
    expect(again.status).toBe('committed');
    await until(
      async () => (await history(two)).includes(again.updateId!),
      20_000,
      'the second transaction in history',
    );
    expect(await history(two)).not.toContain(old);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 180_000);
});
