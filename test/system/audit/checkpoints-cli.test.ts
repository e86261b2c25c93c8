// `quill audit verify --checkpoints` (issue 29 item 5, F8) and the key commands' audit entries. The attacks F8 names
// pass the plain `verify` (exit 0) and are named against the signed checkpoints (exit 1): entries cut off the end
// with the head moved back, an entry rewritten with every later link recomputed; so is a forged checkpoint line.
// A checkpoint file that is not one is exit 2. `quill keys generate|disable` append their entries with the OS user,
// and change nothing when Redis does not answer.
import { readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Checkpoint } from '../../../src/audit/index.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { openKeyring } from '../../../src/server/parts.ts';
import {
  anchoredChain,
  auditOf,
  edited,
  relink,
  replaceChain,
  streamEntries,
} from '../../support/audit-chain.ts';
import { testRedis } from '../../support/records.ts';
import { runCli } from '../../support/run-cli.ts';
import { tempDir } from '../../support/tmp.ts';

const redis = testRedis();
afterAll(() => redis.quit());

let keysEnv: Record<string, string>;
let auditKey: { fingerprint: string; publicKey: string };
beforeAll(async () => {
  keysEnv = {
    KEYS_DIR: join(tempDir('quill-cp-cli-'), 'keys'),
    KEYSTORE_PASSPHRASE: 'checkpoints cli',
    KEYSTORE_SCRYPT_N: '1024',
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: `t-cp-keys-${process.pid}`,
  };
  const r = await runCli(
    ['keys', 'generate', '--algorithm', 'ed25519', '--label', 'audit', '--json'],
    keysEnv,
  );
  expect(r.code).toBe(0);
  auditKey = JSON.parse(r.stdout);
});

/** A six-entry chain with `n` checkpoints of it (one entry appended between two), and the CLI's environment. */
async function anchored(n = 1) {
  const keys = openKeyring(loadConfig(keysEnv, ['keys']));
  const { store, file, checkpointer } = await anchoredChain(redis, keys, auditKey.fingerprint);
  const taken: Checkpoint[] = [];
  for (let i = 0; i < n; i++) {
    if (i > 0) await auditOf(store).append({ kind: 'policy', at: `t${i}`, actor: 'ops' });
    taken.push((await checkpointer.checkpoint()) as Checkpoint);
  }
  await keys.close();
  const env = { ...keysEnv, REDIS_PREFIX: store.prefix.slice(0, -1) };
  return { prefix: store.prefix, file, taken, env };
}

describe('quill audit verify --checkpoints', () => {
  it('passes an intact chain and says how many checkpoints it checked; AUDIT_CHECKPOINT_FILE is the default', async () => {
    const { file, taken, env } = await anchored(2);
    const r = await runCli(['audit', 'verify', '--checkpoints', file], env);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(
      `ok: 7 entries, head ${taken[1]?.head}\n2 checkpoints checked, the newest of ${taken[1]?.at} (7 entries)\n`,
    );
    expect(await runCli(['audit', 'verify'], { ...env, AUDIT_CHECKPOINT_FILE: file })).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('2 checkpoints checked'),
    });
    // An exported chain is checked against them the same way.
    const exported = join(tempDir('quill-cp-cli-'), 'audit.jsonl');
    expect((await runCli(['audit', 'export', '--out', exported], env)).code).toBe(0);
    expect((await runCli(['audit', 'verify', exported, '--checkpoints', file], keysEnv)).code).toBe(0);
  });

  it('(a) names entries deleted from the end with the head moved back, which the plain verify passes', async () => {
    const { prefix, file, taken, env } = await anchored(2);
    await replaceChain(redis, prefix, (await streamEntries(redis, `${prefix}audit`)).slice(0, 5));
    expect(await runCli(['audit', 'verify'], env)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('ok: 5 entries'),
    });
    const r = await runCli(['audit', 'verify', '--checkpoints', file], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `quill: audit checkpoints: entries after 5 were deleted (checkpoint of ${taken[1]?.at} has count 7, the chain has 5)\n`,
    );
  });

  it('(b) names an entry rewritten before the last checkpoint with every later link recomputed', async () => {
    const { prefix, file, taken, env } = await anchored(2);
    const entries = await streamEntries(redis, `${prefix}audit`);
    const forged = relink(entries.map((e, i) => (i === 1 ? edited(e) : e)));
    await replaceChain(redis, prefix, forged);
    expect((await runCli(['audit', 'verify'], env)).code).toBe(0);
    const r = await runCli(['audit', 'verify', '--checkpoints', file], env);
    expect(r.code).toBe(1);
    const now = forged[5]?.fields.find(([k]) => k === 'chainHash')?.[1];
    expect(r.stderr).toBe(
      `quill: audit checkpoints: the chain up to entry 6 was rewritten (checkpoint of ${taken[0]?.at} has head ` +
        `${taken[0]?.head}, the chain has ${now} at entry 6)\n`,
    );
  });

  it('(c) names a forged checkpoint line, and one signed by a key it does not know', async () => {
    const { file, taken, env } = await anchored(2);
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    const forgedFile = join(tempDir('quill-cp-cli-'), 'forged.jsonl');
    // The attacker lowers the newest checkpoint's count to match a chain cut short.
    const lowered = JSON.stringify({ ...(taken[1] as Checkpoint), count: 5 });
    await writeFile(forgedFile, `${lines[0]}\n${lowered}\n`);
    const r = await runCli(['audit', 'verify', '--checkpoints', forgedFile], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `quill: audit checkpoints: the checkpoint at ${forgedFile}:2 (of ${taken[1]?.at}) has a bad signature: ` +
        `key ${auditKey.fingerprint} did not sign it (forged or edited)\n`,
    );
    const strangerFile = join(tempDir('quill-cp-cli-'), 'stranger.jsonl');
    const stranger = `1220${'ab'.repeat(32)}`;
    await writeFile(strangerFile, `${JSON.stringify({ ...(taken[0] as Checkpoint), key: stranger })}\n`);
    const u = await runCli(['audit', 'verify', '--checkpoints', strangerFile], env);
    expect(u.code).toBe(1);
    expect(u.stderr).toContain(`is signed by key ${stranger}, which is not in the key ring`);
  });

  it('(d) a checkpoint file that is not one, or is missing, is exit 2 with one line', async () => {
    const { env } = await anchored();
    const garbage = join(tempDir('quill-cp-cli-'), 'garbage.jsonl');
    const cases: [string, RegExp][] = [
      ['not json at all\n', /garbage\.jsonl:1: not a JSON line$/],
      ['{"v":1,"count":"six"}\n', /garbage\.jsonl:1: not an audit checkpoint \(/],
      ['[1,2,3]\n', /garbage\.jsonl:1: not an audit checkpoint/],
    ];
    for (const [text, message] of cases) {
      await writeFile(garbage, text);
      const r = await runCli(['audit', 'verify', '--checkpoints', garbage], env);
      expect(r.code, text).toBe(2);
      expect(r.stderr.trim().split('\n'), text).toHaveLength(1);
      expect(r.stderr.trim(), text).toMatch(message);
    }
    const missing = await runCli(['audit', 'verify', '--checkpoints', '/nonexistent/cp.jsonl'], env);
    expect(missing).toMatchObject({ code: 2, stderr: 'quill: checkpoints: /nonexistent/cp.jsonl: ENOENT\n' });
    // Garbage in the audit section is a configuration error: exit 2, named.
    const bad: [Record<string, string>, string][] = [
      [
        { AUDIT_CHECKPOINT_SECONDS: 'soon' },
        'AUDIT_CHECKPOINT_SECONDS: must be an integer between 1 and 86400',
      ],
      [{ AUDIT_CHECKPOINT_SECONDS: '0' }, 'AUDIT_CHECKPOINT_SECONDS: must be at least 1'],
      [{ AUDIT_KEY: 'audit' }, 'AUDIT_KEY: must be a key fingerprint (1220 followed by 64 hex digits)'],
      [{ AUDIT_KEY: auditKey.fingerprint }, 'AUDIT_KEY needs AUDIT_CHECKPOINT_FILE'],
      [
        {
          AUDIT_KEY: auditKey.fingerprint,
          AUDIT_CHECKPOINT_FILE: garbage,
          AUDIT_CHECKPOINT_WEBHOOK_URL: 'ftp://x',
        },
        'AUDIT_CHECKPOINT_WEBHOOK_URL: must be a URL (http or https)',
      ],
    ];
    for (const [vars, message] of bad) {
      const r = await runCli(['audit', 'verify'], { ...env, ...vars });
      expect(r.code, message).toBe(2);
      expect(r.stderr, message).toContain(message);
    }
  });

  it('--audit-public-key verifies without the key store: a keys show --json file, or the key in hex', async () => {
    const { file, env } = await anchored(2);
    const noStore = { REDIS_URL: keysEnv.REDIS_URL, REDIS_PREFIX: env.REDIS_PREFIX };
    const viewFile = join(tempDir('quill-cp-cli-'), 'audit-key.json');
    await writeFile(viewFile, JSON.stringify(auditKey));
    expect(
      await runCli(['audit', 'verify', '--checkpoints', file, '--audit-public-key', viewFile], noStore),
    ).toMatchObject({ code: 0, stdout: expect.stringContaining('2 checkpoints checked') });
    const hex = Buffer.from(auditKey.publicKey, 'base64').toString('hex');
    expect(
      (await runCli(['audit', 'verify', '--checkpoints', file, '--audit-public-key', hex], noStore)).code,
    ).toBe(0);
    // Without a key store or a public key, it says what to give.
    const none = await runCli(['audit', 'verify', '--checkpoints', file], noStore);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--audit-public-key');
    expect(
      (
        await runCli(
          ['audit', 'verify', '--checkpoints', file, '--audit-public-key', 'zz-not-a-key'],
          noStore,
        )
      ).code,
    ).toBe(2);
    // Another key given: the checkpoints' key is unknown.
    const other = Buffer.alloc(32, 7).toString('hex');
    const wrong = await runCli(
      ['audit', 'verify', '--checkpoints', file, '--audit-public-key', other],
      noStore,
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('not the --audit-public-key');
  });
});

describe('quill keys generate|disable are audited', () => {
  it('append key.generate and key.disable with the OS user, the key, its algorithm and backend', async () => {
    const env = { ...keysEnv, REDIS_PREFIX: `t-keys-audit-${process.pid}` };
    const gen = await runCli(['keys', 'generate', '--algorithm', 'p256', '--json'], env);
    expect(gen.code).toBe(0);
    const key = JSON.parse(gen.stdout);
    expect((await runCli(['keys', 'disable', key.fingerprint], env)).code).toBe(0);
    // Disabling a disabled key changes nothing and appends nothing.
    expect((await runCli(['keys', 'disable', key.fingerprint], env)).code).toBe(0);
    const entries = (await auditOf({ redis, prefix: `${env.REDIS_PREFIX}:` }).entries()).map((e) =>
      Object.fromEntries(e.fields),
    );
    const actor = `cli:${userInfo().username}`;
    expect(entries).toMatchObject([
      { kind: 'key.generate', actor, keyFingerprint: key.fingerprint, algorithm: 'p256', backend: 'file' },
      { kind: 'key.disable', actor, keyFingerprint: key.fingerprint, algorithm: 'p256', backend: 'file' },
    ]);
    expect(entries).toHaveLength(2);
    expect((await runCli(['audit', 'verify'], env)).stdout).toContain('ok: 2 entries');
  });

  it('change nothing when Redis does not answer (exit 1, one line)', async () => {
    const dead = { ...keysEnv, REDIS_URL: 'redis://127.0.0.1:1' };
    const before = (await runCli(['keys', 'list', '--json'], keysEnv)).stdout;
    const gen = await runCli(['keys', 'generate', '--algorithm', 'ed25519'], dead);
    expect(gen.code).toBe(1);
    expect(gen.stderr).toMatch(
      /^quill: cannot reach Redis \(REDIS_URL\) to write the audit entry, so nothing was changed/,
    );
    const dis = await runCli(['keys', 'disable', auditKey.fingerprint], dead);
    expect(dis.code).toBe(1);
    expect((await runCli(['keys', 'list', '--json'], keysEnv)).stdout).toBe(before);
  });
});
