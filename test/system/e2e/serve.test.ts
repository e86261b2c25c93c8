// `quill serve` as a process (embedded sandbox), `quill submit` and `quill tokens issue` against it, the
// refusals at start, and a graceful SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LedgerClient } from '@quill/canton/ledger';
import { SignJWT } from 'jose';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../../support/redis-global-setup.ts';
import { tempDir } from '../../support/tmp.ts';
import { noteCommand, prepareOn } from '../../support/wallet.ts';

const SECRET = 'serve-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

function run(args: string[], env: Record<string, string>, timeoutMs = 30_000) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, [resolve('bin/quill.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

describe('quill serve', () => {
  it('refuses to start without LEDGER_URL unless --demo or --sandbox is given: one line naming both, exit 2', async () => {
    const r = await run(['serve'], { REDIS_URL: inject('redisUrl'), AUTH_JWT_SECRET: SECRET });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^quill: LEDGER_URL is not set: .*quill serve --demo/);
    expect(r.stdout).toBe('');
    // --sandbox and --demo run on the embedded ledger, which they refuse to mix with a real one.
    const both = await run(['serve', '--sandbox'], {
      LEDGER_URL: 'http://127.0.0.1:9',
      AUTH_JWT_SECRET: SECRET,
    });
    expect(both.code).toBe(2);
    expect(both.stderr.trim()).toBe('quill: --sandbox runs on the embedded sandbox: unset LEDGER_URL');
  });

  // Three CLI starts: each compiles the CLI with tsx, seconds apiece on a loaded machine.
  it('refuses to start without auth settings or with a bad value, one line, exit 2', {
    timeout: 90_000,
  }, async () => {
    const noAuth = await run(['serve'], { REDIS_URL: inject('redisUrl'), LEDGER_URL: 'http://127.0.0.1:9' });
    expect(noAuth.code).toBe(2);
    expect(noAuth.stderr.trim()).toMatch(
      /^quill: refusing to start without AUTH_JWT_SECRET or AUTH_JWKS_URL/,
    );
    expect(noAuth.stderr.trim().split('\n')).toHaveLength(1);
    const bad = await run(['serve'], {
      PORT: '99999',
      WORKER_CONCURRENCY: 'many',
      AUTH_JWT_SECRET: SECRET,
      LEDGER_URL: 'http://127.0.0.1:9',
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/PORT: must be between 0 and 65535; WORKER_CONCURRENCY:/);
    const token = await run(['tokens', 'issue', '--role', 'read', '--ttl', 'forever'], {
      AUTH_JWT_SECRET: SECRET,
    });
    expect(token.code).toBe(2);
    expect(token.stderr).toMatch(/invalid ttl/);
  });

  it('a worker-only process answers probes and metrics, and stops on SIGTERM', {
    timeout: 90_000,
  }, async () => {
    const port = await freePort();
    const worker = spawn(process.execPath, [resolve('bin/quill.js'), 'serve', '--role', 'worker'], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        HOST: '127.0.0.1',
        REDIS_URL: inject('redisUrl'),
        REDIS_PREFIX: `worker-${port}`,
        LEDGER_URL: 'http://127.0.0.1:9',
        LEDGER_TIMEOUT_MS: '500',
      },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((r) => worker.on('exit', (code) => r(code)));
    try {
      let metrics = '';
      // Generous: tsx compiles the CLI at start, which is slow on a loaded CI machine.
      for (let i = 0; i < 600 && !metrics; i++) {
        metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then(
          (r) => r.text(),
          () => '',
        );
        if (!metrics) await new Promise((r) => setTimeout(r, 100));
      }
      expect(metrics).toContain('quill_submission_attempts_total');
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ redis: true, ledger: false });
      expect((await fetch(`http://127.0.0.1:${port}/wallet/v1/submissions`)).status).toBe(404);
    } finally {
      worker.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('a worker whose Redis is unreachable still exits after SIGTERM, within the shutdown grace', {
    timeout: 120_000,
  }, async () => {
    const port = await freePort();
    const deadRedis = await freePort(); // nothing listens there
    let stderr = '';
    const worker = spawn(process.execPath, [resolve('bin/quill.js'), 'serve', '--role', 'worker'], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        HOST: '127.0.0.1',
        REDIS_URL: `redis://127.0.0.1:${deadRedis}`,
        LEDGER_URL: 'http://127.0.0.1:9',
        SHUTDOWN_TIMEOUT_MS: '1000',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    worker.stderr?.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => worker.on('exit', (code) => r(code)));
    // Started (its SIGTERM handler installed) before the signal: a signal during a slow start kills it outright.
    for (let i = 0; i < 1000 && !stderr.includes('worker on queue'); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(stderr).toContain('worker on queue');
    const sentAt = Date.now();
    worker.kill('SIGTERM');
    const code = await exited;
    expect(Date.now() - sentAt).toBeLessThan(1_000 + 5_000 + 3_000);
    expect(code).not.toBeNull(); // it exited by itself, not killed by a signal
  });

  it.each([
    ['off', undefined],
    ['on', 'sandbox-ledger-secret-0123456789abcdef'],
  ])(
    'serves with --sandbox (ledger auth %s) and prints no sign-in link; `quill submit --wait` commits; SIGTERM stops it',
    {
      timeout: 150_000,
    },
    async (_auth, sandboxSecret) => {
      const [port, sandboxPort, scanPort] = [await freePort(), await freePort(), await freePort()];
      const keysDir = tempDir('quill-serve-keys-');
      const env = {
        PORT: String(port),
        HOST: '127.0.0.1',
        SANDBOX_PORT: String(sandboxPort),
        SANDBOX_SCAN_PORT: String(scanPort),
        REDIS_URL: inject('redisUrl'),
        REDIS_PREFIX: `serve-${port}`,
        AUTH_JWT_SECRET: SECRET,
        KEYSTORE_PASSPHRASE: 'serve passphrase',
        KEYSTORE_SCRYPT_N: '1024',
        KEYS_DIR: keysDir,
        ...(sandboxSecret ? { SANDBOX_AUTH_SECRET: sandboxSecret } : {}),
      };
      const server: ChildProcess = spawn(process.execPath, [resolve('bin/quill.js'), 'serve', '--sandbox'], {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      server.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
      });
      let logs = '';
      server.stderr?.on('data', (chunk: Buffer) => {
        logs += chunk.toString('utf8');
      });
      const exited = new Promise<number | null>((r) => server.on('exit', (code) => r(code)));
      const secrets: string[] = [SECRET, env.KEYSTORE_PASSPHRASE, ...(sandboxSecret ? [sandboxSecret] : [])];
      let record: Record<string, unknown> = {};
      try {
        const base = `http://127.0.0.1:${port}`;
        // tsx compiles the CLI at start: on a loaded 2-core CI machine that has taken over 20 s.
        const deadline = Date.now() + 75_000;
        for (;;) {
          const ok = await fetch(`${base}/readyz`).then(
            (r) => r.ok,
            () => false,
          );
          if (ok) break;
          if (server.exitCode !== null || Date.now() > deadline)
            throw new Error(`quill serve never became ready (exit ${server.exitCode}):\n${logs}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        const admin = (
          await run(['tokens', 'issue', '--role', 'admin', '--ttl', '10m'], { AUTH_JWT_SECRET: SECRET })
        ).stdout.trim();
        secrets.push(admin);
        const call = async (path: string, body: unknown) =>
          (await fetch(`${base}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }).then((r) => r.json())) as Record<string, string>;
        const key = await call('/wallet/v1/keys', { algorithm: 'ed25519' });
        const party = (
          await call('/wallet/v1/parties', { keyFingerprint: key.fingerprint, partyHint: 'cli' })
        ).partyId as string;
        // With ledger auth on, the custody backend prepares as the wallet's ledger user ('quill'), which
        // onboarding made able to act as the party.
        const ledgerToken = sandboxSecret
          ? await new SignJWT({ scope: 'daml_ledger_api' })
              .setProtectedHeader({ alg: 'HS256' })
              .setSubject('quill')
              .setExpirationTime('10m')
              .sign(new TextEncoder().encode(sandboxSecret))
          : undefined;
        const ledger = new LedgerClient({
          baseUrl: `http://127.0.0.1:${sandboxPort}`,
          ...(ledgerToken ? { token: ledgerToken } : {}),
        });
        const body = await prepareOn(ledger, party, noteCommand(party), undefined, {
          userId: sandboxSecret ? 'quill' : 'participant_admin',
        });
        const file = join(keysDir, 'request.json');
        writeFileSync(file, JSON.stringify(body));
        const submitter = (
          await run(['tokens', 'issue', '--role', 'submit', '--party', party], { AUTH_JWT_SECRET: SECRET })
        ).stdout.trim();
        secrets.push(submitter);
        const submitted = await run(['submit', '--party', party, file, '--wait', '20'], {
          QUILL_URL: base,
          QUILL_TOKEN: submitter,
        });
        expect(submitted.stderr).toBe('');
        expect(submitted.code).toBe(0);
        record = JSON.parse(submitted.stdout);
        expect(record).toMatchObject({ status: 'committed', party });
        const refused = await run(['submit', '--party', 'someone::1220', file], {
          QUILL_URL: base,
          QUILL_TOKEN: submitter,
        });
        expect(refused.code).toBe(2);
        expect(refused.stderr).toMatch(/^quill: (PARTY_MISMATCH|PARTY_NOT_ALLOWED): /);
      } finally {
        server.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
      // Only --demo prints a console sign-in link (an admin gets one with `quill console link`).
      expect(stdout).not.toMatch(/sign-?in/i);
      expect(logs).not.toContain('/console/signin');
      // The operator's view: JSON lines that follow the submission from request to commit, without secrets.
      const lines = logs
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      for (const line of lines)
        expect(line).toMatchObject({ level: expect.any(String), time: expect.any(String) });
      const about = { submission: record.id, commandId: record.commandId, party: record.party };
      expect(lines).toContainEqual(expect.objectContaining({ level: 'info', msg: 'accepted', ...about }));
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 'info', msg: 'committed', ...about, updateId: record.updateId }),
      );
      expect(lines).toContainEqual(
        expect.objectContaining({
          msg: 'request',
          method: 'POST',
          path: '/wallet/v1/submissions',
          status: 200, // --wait: answered once committed
          requestId: expect.any(String),
          subject: expect.stringMatching(/^tok-[0-9a-f]{16}$/), // issued without --subject
        }),
      );
      for (const secret of secrets) expect(logs).not.toContain(secret);
    },
  );
});
