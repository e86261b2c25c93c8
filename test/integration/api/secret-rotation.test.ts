// Rotating the API token secret (issue 31 item 2): tokens signed with the previous secret are accepted until
// AUTH_JWT_PREVIOUS_SECRET_UNTIL and refused after it, over real HTTP; tokens are always issued with the current one.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuthError, createVerifier, issueToken } from '../../../src/auth/index.ts';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';
import { mintLink } from '../../../src/console/links.ts';
import { apiHarness } from '../../support/api-harness.ts';
import { runCli } from '../../support/run-cli.ts';
import { tempDir } from '../../support/tmp.ts';

const OLD = 'old-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const NEW = 'new-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const OTHER = 'some-other-secret-0123456789-abcdefghijklmnopqrs';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The rotation's environment: the new secret current, the old one in a file, accepted for `graceMs` more. */
function rotated(graceMs: number) {
  const dir = tempDir('quill-rotation-');
  writeFileSync(join(dir, 'previous'), `${OLD}\n`, { mode: 0o600 });
  writeFileSync(join(dir, 'current'), `${NEW}\n`, { mode: 0o600 });
  return {
    AUTH_JWT_SECRET: '',
    AUTH_JWT_SECRET_FILE: join(dir, 'current'),
    AUTH_JWT_PREVIOUS_SECRET_FILE: join(dir, 'previous'),
    AUTH_JWT_PREVIOUS_SECRET_UNTIL: new Date(Date.now() + graceMs).toISOString(),
  };
}

const token = (secret: string) => issueToken({ secret, role: 'read', ttlSeconds: 600, subject: 'rotation' });

/** Redeems a console sign-in link over plain HTTP: 303 signs in, 400 is the sign-in page with its error. */
async function redeem(url: string, t: string): Promise<number> {
  const first = await fetch(`${url}/console/signin?t=${t}`);
  const pre = /name="_pre" value="([^"]+)"/.exec(await first.text())?.[1] ?? '';
  const preCookie = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const res = await fetch(`${url}/console/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: preCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ t, _pre: pre, next: '/console' }),
  });
  await res.arrayBuffer();
  return res.status;
}

describe('API token secret rotation', () => {
  it('accepts old-secret tokens inside the grace period and answers 401 after it; new-secret tokens throughout', async () => {
    const h = await apiHarness(rotated(2500));
    try {
      const [old, fresh, other] = await Promise.all([token(OLD), token(NEW), token(OTHER)]);
      const list = (t: string) => h.call('GET', '/wallet/v1/submissions', { token: t });
      expect((await list(old)).status).toBe(200);
      expect((await list(old)).status).toBe(200); // answered from memory
      expect((await list(fresh)).status).toBe(200);
      expect((await list(other)).status).toBe(401);

      // The start says until when the previous secret is accepted, and never a secret.
      const notice = h.logs.find((l) => String(l.msg).includes('previous secret'));
      expect(notice).toMatchObject({
        level: 'info',
        previousSecretUntil: h.config.auth.previousJwtSecretUntil
          ? new Date(h.config.auth.previousJwtSecretUntil).toISOString()
          : 'missing',
      });
      expect(String(notice?.msg)).toMatch(/accepted until \S+ \(\d+ s from now\), then refused/);
      expect(JSON.stringify(h.logs)).not.toContain(OLD);
      expect(JSON.stringify(h.logs)).not.toContain(NEW);

      await sleep(Math.max(0, (h.config.auth.previousJwtSecretUntil ?? 0) - Date.now()) + 200);
      // The token verified before is not answered from memory past the grace period either.
      const after = await list(old);
      expect(after.status).toBe(401);
      expect(after.json.error?.code).toBe('UNAUTHENTICATED');
      expect((await list(await token(OLD))).status).toBe(401);
      expect((await list(fresh)).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it('console sign-in links: signed with the current secret only; one minted with the old secret is refused', async () => {
    // Links are one-time and live minutes: one minted before the rotation is simply asked for again. The
    // console checks links against the current secret alone, so an old link never signs in (no grace).
    const h = await apiHarness(rotated(60_000));
    try {
      const link = (secret: string) => mintLink(secret, { role: 'read', ttlSeconds: 600 });
      expect(await redeem(String(h.wallet.url), await link(NEW))).toBe(303);
      expect(await redeem(String(h.wallet.url), await link(OLD))).toBe(400);
      // The API's own link route mints with the current secret.
      const minted = await h.call('POST', '/wallet/v1/console/links', {
        token: await issueToken({ secret: NEW, role: 'admin', ttlSeconds: 600, subject: 'ops' }),
        body: { role: 'read', subject: 'alice', ttlSeconds: 600 },
      });
      expect(minted.status).toBe(201);
      expect(await redeem(String(h.wallet.url), String(minted.json.token))).toBe(303);
    } finally {
      await h.close();
    }
  });

  it('quill tokens issue signs with the current secret, never the previous one', async () => {
    const env = { ...rotated(60_000), AUTH_JWT_SECRET: undefined };
    const r = await runCli(['tokens', 'issue', '--role', 'read', '--ttl', '5m'], env);
    expect(r.code).toBe(0);
    const t = r.stdout.trim();
    await expect(createVerifier({ jwtSecret: NEW, algorithms: ['HS256'] })(t)).resolves.toMatchObject({
      role: 'read',
    });
    await expect(createVerifier({ jwtSecret: OLD, algorithms: ['HS256'] })(t)).rejects.toThrow(AuthError);
  });

  it('verifier with an injected clock: the previous secret up to the grace end, not a millisecond after', async () => {
    let clock = Date.now();
    const until = clock + 10_000;
    const verify = createVerifier(
      { jwtSecret: NEW, previousJwtSecret: OLD, previousJwtSecretUntil: until, algorithms: ['HS256'] },
      () => clock,
    );
    const old = await token(OLD);
    await expect(verify(old)).resolves.toMatchObject({ subject: 'rotation' });
    clock = until - 1;
    await expect(verify(old)).resolves.toMatchObject({ subject: 'rotation' });
    clock = until;
    await expect(verify(old)).rejects.toThrow('the token is invalid');
    await expect(verify(await token(OLD))).rejects.toThrow(AuthError);
    await expect(verify(await token(NEW))).resolves.toMatchObject({ role: 'read' });
  });

  it('refuses bad rotation settings with one clear line each (never the secret)', () => {
    const dir = tempDir('quill-rotation-bad-');
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text, { mode: 0o600 });
      return join(dir, name);
    };
    const until = '2030-01-01T00:00:00Z';
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env, ['auth']);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).problems.join('\n');
      }
      return '';
    };
    const cases: [Record<string, string>, RegExp][] = [
      [
        { AUTH_JWT_PREVIOUS_SECRET_FILE: file('p1', OLD), AUTH_JWT_PREVIOUS_SECRET_UNTIL: until },
        /AUTH_JWT_PREVIOUS_SECRET_FILE needs the current secret too/,
      ],
      [
        {
          AUTH_JWT_SECRET: NEW,
          AUTH_JWT_PREVIOUS_SECRET_FILE: file('p2', NEW),
          AUTH_JWT_PREVIOUS_SECRET_UNTIL: until,
        },
        /the previous secret is the current one/,
      ],
      [
        {
          AUTH_JWT_SECRET: NEW,
          AUTH_JWT_PREVIOUS_SECRET_FILE: file('p3', 'short-secret'),
          AUTH_JWT_PREVIOUS_SECRET_UNTIL: until,
        },
        /AUTH_JWT_PREVIOUS_SECRET_FILE: the secret must be at least 32 characters/,
      ],
      [
        {
          AUTH_JWT_SECRET: NEW,
          AUTH_JWT_PREVIOUS_SECRET: OLD,
          AUTH_JWT_PREVIOUS_SECRET_UNTIL: 'next tuesday',
        },
        /AUTH_JWT_PREVIOUS_SECRET_UNTIL: must be an ISO 8601 time with its zone/,
      ],
      [
        {
          AUTH_JWT_SECRET: NEW,
          AUTH_JWT_PREVIOUS_SECRET: OLD,
          AUTH_JWT_PREVIOUS_SECRET_UNTIL: '2030-01-01T00:00:00',
        },
        /must be an ISO 8601 time with its zone/,
      ],
      [{ AUTH_JWT_SECRET: NEW, AUTH_JWT_PREVIOUS_SECRET: OLD }, /needs AUTH_JWT_PREVIOUS_SECRET_UNTIL/],
      [
        { AUTH_JWT_SECRET: NEW, AUTH_JWT_PREVIOUS_SECRET_UNTIL: until },
        /is set without AUTH_JWT_PREVIOUS_SECRET/,
      ],
      [
        {
          AUTH_JWT_SECRET: NEW,
          AUTH_JWT_PREVIOUS_SECRET: OLD,
          AUTH_JWT_PREVIOUS_SECRET_FILE: file('p4', OLD),
          AUTH_JWT_PREVIOUS_SECRET_UNTIL: until,
        },
        /both set: choose one/,
      ],
      [
        {
          AUTH_JWT_SECRET: NEW,
          AUTH_JWT_PREVIOUS_SECRET_FILE: join(dir, 'missing'),
          AUTH_JWT_PREVIOUS_SECRET_UNTIL: until,
        },
        /AUTH_JWT_PREVIOUS_SECRET_FILE: cannot read .*missing \(ENOENT\)/,
      ],
    ];
    for (const [env, expected] of cases) {
      const text = problems(env);
      expect(text, JSON.stringify(env)).toMatch(expected);
      expect(text).not.toContain(OLD);
      expect(text).not.toContain(NEW);
    }
    const good = loadConfig(
      {
        AUTH_JWT_SECRET: NEW,
        AUTH_JWT_PREVIOUS_SECRET: OLD,
        AUTH_JWT_PREVIOUS_SECRET_UNTIL: '2030-01-01T01:00:00+01:00',
      },
      ['auth'],
    );
    expect(good.auth.previousJwtSecretUntil).toBe(Date.parse('2030-01-01T00:00:00Z'));
  });

  it('a bad rotation setting stops quill serve with exit 2', async () => {
    const r = await runCli(['serve', '--role', 'api'], {
      AUTH_JWT_SECRET: NEW,
      AUTH_JWT_PREVIOUS_SECRET: NEW,
      AUTH_JWT_PREVIOUS_SECRET_UNTIL: '2030-01-01T00:00:00Z',
      LEDGER_URL: 'http://127.0.0.1:9',
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the previous secret is the current one');
    expect(r.stderr).not.toContain(NEW);
  });
});
