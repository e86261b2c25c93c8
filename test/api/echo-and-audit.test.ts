// Issue 12 finding 11: echoed ids are escaped and bounded; an audit line whose submission was never stored
// says so and names the record that was; `quill sandbox` takes its secret without putting it in `ps`.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.ts';
import { apiHarness, prepared } from './harness.ts';

let h: Awaited<ReturnType<typeof apiHarness>>;
beforeAll(async () => {
  h = await apiHarness();
});
afterAll(() => h.close());

// Control characters, bidi overrides/isolates, separators: what must never come back raw.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/u;

describe('echoed ids', () => {
  it('escapes control and bidi characters and bounds the length in 404 messages', async () => {
    const read = await h.token('read');
    const raw = '\u202eevil\u2066\u001b[31mred\u0007\u2028';
    const short = encodeURIComponent(`${raw}${'x'.repeat(60)}`); // within the id schemas' 100 characters
    const long = encodeURIComponent(`${raw}${'x'.repeat(5000)}`);
    const cases = [
      await h.call('GET', `/wallet/v1/submissions/${short}`, { token: read }),
      await h.call('GET', `/wallet/v1/updates/${short}`, { token: read }),
      await h.call('GET', `/wallet/v1/nothing-here/${long}`, { token: read }),
    ];
    for (const res of cases) {
      expect(res.status, res.text).toBe(404);
      const message = res.json.error?.message ?? '';
      expect(message).not.toMatch(UNSAFE);
      expect(message).toContain('\\u{202e}evil\\u{2066}\\u{1b}[31mred\\u{7}\\u{2028}');
      expect(message.length).toBeLessThan(400);
    }
    expect(cases[2]?.json.error?.message).toMatch(/more characters\)$/);
  });

  it('escapes a party echoed from the request body', async () => {
    const alice = await h.party('alice');
    const { body } = prepared(alice.id);
    const res = await h.call('POST', '/wallet/v1/submissions', {
      token: await h.token('submit'),
      body: { ...body, party: 'mallory\u202e::1220ff' },
    });
    expect(res.json.error?.code).toBe('PARTY_MISMATCH');
    expect(res.json.error?.message).toContain('mallory\\u{202e}::1220ff');
    expect(res.json.error?.message).not.toMatch(UNSAFE);
  });
});

describe('audit entries of signatures that were never stored', () => {
  it('labels them stored=false and names the record that holds the command id', async () => {
    const alice = await h.party('audit-alice');
    const p = prepared(alice.id);
    // The same body several times in one batch: items run concurrently, each passes the checks and is signed,
    // and only one record can hold the command id.
    const batch = await h.call('POST', '/wallet/v1/submissions/batch', {
      token: await h.token('submit'),
      body: { submissions: [p.body, p.body, p.body, p.body, p.body] },
    });
    expect(batch.status, batch.text).toBe(200);
    const log = (await h.wallet.audit.signatures()).filter((e) => e.hash === p.hashHex);
    expect(log.length).toBeGreaterThan(1); // the attack: more signatures than records
    const stored = await Promise.all(log.map((e) => h.wallet.store.get(e.submission)));
    const kept = log.filter((_, i) => stored[i] !== undefined);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ stored: 'true' });
    for (const [i, e] of log.entries()) {
      if (stored[i] !== undefined) continue;
      // No dangling id: the entry says it was not stored and which record was.
      expect(e).toMatchObject({ stored: 'false', existingSubmission: kept[0]?.submission });
    }
  });
});

describe('quill sandbox auth secret', () => {
  /** Starts `quill sandbox`, returns its first stdout lines (with the admin token) and its command line. */
  function startSandbox(args: string[], env: Record<string, string> = {}) {
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
        if (/admin token[^\n]*\n/.test(stdout)) child.kill('SIGTERM');
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
});
