// `quill sandbox` as a process: its secret comes from --auth-secret-file or SANDBOX_AUTH_SECRET, never the command line.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../support/tmp.ts';

describe('quill sandbox auth secret', () => {
  /** Starts `quill sandbox`, returns its first stdout lines (with the admin token) and its command line. */
  function startSandbox(args: string[], env: Record<string, string> = {}, until = /admin token[^\n]*\n/) {
    return new Promise<{ stdout: string; stderr: string; code: number | null }>((done) => {
      const child = spawn(
        process.execPath,
        [resolve('bin/quill.js'), 'sandbox', '--port', '0', '--scan-port', '0', ...args],
        { env: { PATH: process.env.PATH ?? '', ...env } },
      );
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.stdout.on('data', (d) => {
        stdout += d;
        if (until.test(stdout)) child.kill('SIGTERM');
      });
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => {
        clearTimeout(timer);
        done({ stdout, stderr, code });
      });
    });
  }
  const tokenOf = (stdout: string) => /admin token[^:]*: (\S+)/.exec(stdout)?.[1] ?? '';

  it('reads the secret from --auth-secret-file or SANDBOX_AUTH_SECRET, never needing it on the command line', async () => {
    const secret = `file-secret-${'s'.repeat(40)}`;
    const file = join(tempDir('quill-sandbox-'), 'secret');
    await writeFile(file, `${secret}\n`, { mode: 0o600 });
    const fromFile = await startSandbox(['--auth-secret-file', file]);
    expect(fromFile.stderr).toBe('');
    await expect(jwtVerify(tokenOf(fromFile.stdout), new TextEncoder().encode(secret))).resolves.toBeTruthy();

    const envSecret = `env-secret-${'e'.repeat(40)}`;
    const fromEnv = await startSandbox([], { SANDBOX_AUTH_SECRET: envSecret });
    await expect(
      jwtVerify(tokenOf(fromEnv.stdout), new TextEncoder().encode(envSecret)),
    ).resolves.toBeTruthy();

    await writeFile(file, 'short\n');
    const short = await startSandbox(['--auth-secret-file', file]);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/--auth-secret-file: the secret must be at least 16 characters/);
    const both = await startSandbox(['--auth-secret-file', file, '--auth-secret', 'x'.repeat(20)]);
    expect(both.code).toBe(2);
  });

  it('serves the admin API and extra hosts, each announced, and refuses a bad host name (exit 2)', async () => {
    const run = await startSandbox(['--no-auth', '--hosts', 'p2,p3'], {}, /host p3: [^\n]*\n/);
    expect(run.stdout).toMatch(/admin API \(gRPC topology services, on 127\.0\.0\.1\): 127\.0\.0\.1:\d+\n/);
    expect(run.stdout).toMatch(/host p2: http:\/\/127\.0\.0\.1:\d+ \(p2::1220[0-9a-f]{64}\)\n/);
    const bad = await startSandbox(['--no-auth', '--hosts', 'P2!'], {}, /host /);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--hosts: "P2!" is not a name/);
  });

  it('takes --max-deduplication-seconds as a whole number of seconds from 1, and refuses anything else (exit 2)', async () => {
    const ok = await startSandbox(
      ['--no-auth', '--max-deduplication-seconds', '600'],
      {},
      /auth: off[^\n]*\n/,
    );
    expect(ok.stdout).toMatch(/sandbox ledger: http:\/\/127\.0\.0\.1:\d+/);
    expect(ok.stderr).toBe('');
    for (const bad of ['0', '1.5', 'ten']) {
      const r = await startSandbox(['--no-auth', '--max-deduplication-seconds', bad], {}, /sandbox ledger/);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toMatch(/--max-deduplication-seconds must be a whole number of seconds from 1/);
    }
  });
});
