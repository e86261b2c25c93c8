// The custody example (examples/custody-client, issue 28 part 5) against a fresh demo: `quill serve --demo` as a
// child process in an empty folder, on the test Redis under its own prefix; the example runs as a child process
// too, with nothing but the demo's folder (its secret, party and receiver), and must exit 0 with every step ok.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { afterAll, expect, inject, it } from 'vitest';
import { freePort } from '../../support/redis-global-setup.ts';
import { tempDir } from '../../support/tmp.ts';

const QUILL = resolve('bin/quill.js');
const EXAMPLE = resolve('examples/custody-client/client.ts');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

function run(args: string[], env: Record<string, string>, cwd: string) {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
  });
  children.push(child);
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (d) => (out.stdout += d));
  child.stderr?.on('data', (d) => (out.stderr += d));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, out, exited };
}

it('the custody example passes every step against a fresh demo', async () => {
  const cwd = tempDir('quill-example-');
  const [port, sandboxPort, scanPort] = [await freePort(), await freePort(), await freePort()];
  const demo = run(
    [QUILL, 'serve', '--demo'],
    {
      REDIS_URL: inject('redisUrl'),
      REDIS_PREFIX: `example-${randomBytes(4).toString('hex')}`,
      PORT: String(port),
      SANDBOX_PORT: String(sandboxPort),
      SANDBOX_SCAN_PORT: String(scanPort),
      LOG_LEVEL: 'warn',
    },
    cwd,
  );
  try {
    await exampleAgainst(demo, cwd, port, sandboxPort);
  } finally {
    demo.child.kill('SIGTERM');
  }
  expect(await demo.exited).toBe(0);
}, 120_000);

async function exampleAgainst(demo: ReturnType<typeof run>, cwd: string, port: number, sandboxPort: number) {
  const end = Date.now() + 60_000;
  while (!demo.out.stdout.includes('curl -s -X POST')) {
    if (Date.now() > end || demo.child.exitCode !== null)
      throw new Error(`the demo did not start: ${demo.out.stderr.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const quillUrl = `http://127.0.0.1:${port}`;
  const example = run(
    ['--import', 'tsx', EXAMPLE],
    {
      QUILL_URL: quillUrl,
      LEDGER_URL: `http://127.0.0.1:${sandboxPort}`,
      DEMO_DIR: join(cwd, '.demo'),
    },
    resolve('.'),
  );
  const code = await example.exited;
  const report = `${example.out.stdout}${example.out.stderr}`;
  // The steps that did not pass, by name and reason, make the failure's message.
  expect(report.split('\n').filter((l) => /^(FAIL|skip) /.test(l))).toEqual([]);
  expect(report).toMatch(/^ok {3}6 /m);
  expect(code, report).toBe(0);
}
