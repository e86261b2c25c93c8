// `quill parties onboard|list` against a real HTTP participant (test/parties/fake-participant.ts).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../signing/helpers.ts';
import { runCli } from '../signing/run-cli.ts';
import { type FakeParticipant, SYNCHRONIZER, startFakeParticipant } from './fake-participant.ts';

let participant: FakeParticipant;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  participant = await startFakeParticipant();
  env = {
    KEYS_DIR: join(await tempDir(), 'keys'),
    KEYSTORE_PASSPHRASE: 'parties cli',
    KEYSTORE_PASSPHRASE_FILE: undefined,
    KEYSTORE_SCRYPT_N: '1024',
    LEDGER_URL: participant.url,
    LEDGER_TOKEN: undefined,
  };
});
afterAll(() => participant.close());

describe('quill parties', () => {
  it('onboards with a key and lists the party', async () => {
    const key = JSON.parse((await runCli(['keys', 'generate', '--algorithm', 'p256', '--json'], env)).stdout);
    const r = await runCli(
      ['parties', 'onboard', '--key', key.fingerprint, '--hint', 'treasury', '--json'],
      env,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const party = {
      partyId: `treasury::${key.fingerprint}`,
      keyFingerprint: key.fingerprint,
      synchronizerId: SYNCHRONIZER,
    };
    expect(JSON.parse(r.stdout)).toEqual(party);
    expect(participant.allocated.get(party.partyId)).toBe(SYNCHRONIZER);
    const list = await runCli(['parties', 'list', '--json'], env);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining(party)]);
    const text = await runCli(['parties', 'list'], env);
    expect(text.stdout).toContain(`${party.partyId}  ${key.fingerprint}  ${SYNCHRONIZER}`);
  });

  it('bad input exits 2 with one line; a refusal exits 1', async () => {
    const key = JSON.parse(
      (await runCli(['keys', 'generate', '--algorithm', 'ed25519', '--json'], env)).stdout,
    );
    const bad: [string[], Record<string, string | undefined>][] = [
      [['parties', 'onboard', '--key', key.fingerprint], env],
      [['parties', 'onboard', '--key', key.fingerprint, '--hint', 'a::b'], env],
      [['parties', 'onboard', '--key', 'nope', '--hint', 'a'], env],
      [['parties', 'onboard', '--key', key.fingerprint, '--hint', 'a'], { ...env, LEDGER_URL: undefined }],
      [['parties', 'onboard', '--key', key.fingerprint, '--hint', 'a', '--ledger-url', 'ftp://x'], env],
    ];
    for (const [args, e] of bad) {
      const r = await runCli(args, e);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    const down = await runCli(
      ['parties', 'onboard', '--key', key.fingerprint, '--hint', 'z', '--ledger-url', 'http://127.0.0.1:1'],
      env,
    );
    expect(down.code).toBe(1);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    participant.tamper = 'multiHash';
    const refused = await runCli(['parties', 'onboard', '--key', key.fingerprint, '--hint', 'x'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('multi-hash');
    await runCli(['keys', 'disable', key.fingerprint], env);
    const disabled = await runCli(['parties', 'onboard', '--key', key.fingerprint, '--hint', 'y'], env);
    expect(disabled.code).toBe(1);
    expect(disabled.stderr).toContain('disabled');
  });
});
