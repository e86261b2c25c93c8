// `quill serve --role api --processes K` (issue 13, item 4): K processes serve one port; one SIGKILLed is replaced
// while the others keep answering; SIGTERM stops them all; --processes without --role api is a usage error.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../support/redis-global-setup.ts';
import { tempDir } from '../../support/tmp.ts';
import { startLedger } from '../../support/wallet.ts';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startLedger();
});
afterAll(async () => {
  await sandbox?.close();
});

function quill(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [resolve('bin/quill.js'), ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  const out = { text: '' };
  child.stdout?.on('data', (d) => (out.text += d));
  child.stderr?.on('data', (d) => (out.text += d));
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

const pids = (text: string) =>
  [...text.matchAll(/"pid":(\d+),"msg":"wallet API on/g)].map((m) => Number(m[1]));

describe('quill serve --processes', () => {
  it('serves one port from two processes, replaces a killed one, and stops all on SIGTERM', async () => {
    const port = await freePort();
    const q = quill(['serve', '--role', 'api', '--processes', '2'], {
      LEDGER_URL: sandbox.url,
      LEDGER_USER_ID: 'processes',
      PORT: String(port),
      REDIS_URL: inject('redisUrl'),
      REDIS_PREFIX: `proc-${port}`,
      AUTH_JWT_SECRET: 'processes-secret-0123456789-abcdefghijklmnopqrstuvwxyz',
      KEYSTORE_PASSPHRASE: 'a passphrase for the test',
      KEYS_DIR: tempDir('quill-proc-keys-'),
    });
    try {
      await until(() => pids(q.out.text).length === 2, 30_000, 'two API processes');
      const [first, second] = pids(q.out.text) as [number, number];
      expect(first).not.toBe(second);
      const health = async () =>
        (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status;
      for (let i = 0; i < 10; i++) expect(await health()).toBe(200);

      process.kill(first, 'SIGKILL');
      // Once the primary has seen it die (a kept-alive connection to it is reset, as with any crash), the other
      // one keeps the port answering while the first is replaced.
      await until(
        () => q.out.text.includes(`API process ${first} exited (SIGKILL)`),
        10_000,
        'the primary to notice',
      );
      for (let i = 0; i < 10; i++) expect(await health()).toBe(200);
      await until(() => pids(q.out.text).length === 3, 30_000, 'a replacement process');

      // A served wallet prints no console sign-in link (only --demo does; admins mint them with `quill console link`).
      expect(q.out.text).not.toContain('/console/signin');
      q.child.kill('SIGTERM');
      expect(await q.exited).toBe(0);
      for (const pid of pids(q.out.text)) expect(() => process.kill(pid, 0)).toThrow();
    } finally {
      if (q.child.exitCode === null) q.child.kill('SIGKILL');
    }
  }, 90_000);

  it('refuses --processes without --role api, and a bad count', async () => {
    const env = { REDIS_URL: inject('redisUrl') };
    const a = quill(['serve', '--role', 'worker', '--processes', '2'], env);
    expect(await a.exited).toBe(2);
    expect(a.out.text).toContain('--processes needs --role api');
    const b = quill(['serve', '--role', 'api', '--processes', 'many'], env);
    expect(await b.exited).toBe(2);
    expect(b.out.text).toContain('--processes: a whole number from 1 to 64');
  });
});
