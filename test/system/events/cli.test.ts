// `quill events tail` as a process against a wallet API: JSON lines after --after, scoped by --party and --types; bad
// options exit 2, another party's stream exit 1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog } from '../../../src/events/index.ts';
import { apiHarness } from '../../support/api-harness.ts';
import { conn } from '../../support/events.ts';
import { runCli } from '../../support/run-cli.ts';

type Harness = Awaited<ReturnType<typeof apiHarness>>;
let h: Harness;
let log: EventLog;
const redis = conn();
const ALICE = 'alice::1220aa';
const BOB = 'bob::1220bb';

beforeAll(async () => {
  h = await apiHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', EVENTS_HEARTBEAT_SECONDS: '1' });
  log = new EventLog(redis, h.config.redisPrefix);
});
afterAll(async () => {
  await h.close();
  redis.disconnect();
});

describe('quill events tail', () => {
  it('prints the events after --after as JSON lines, scoped by --party and --types; bad options exit 2', async () => {
    const start = await log.end();
    await log.append('submission.accepted', BOB, {});
    const a = await log.append('submission.committed', ALICE, { x: 1 });
    await log.append('submission.accepted', ALICE, {});
    const env = { QUILL_URL: h.wallet.url, QUILL_TOKEN: await h.token('read') };
    const r = await runCli(
      ['events', 'tail', '--party', ALICE, '--types', 'submission.committed', '--after', start, '--max', '1'],
      env,
    );
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([a]);
    for (const bad of [
      ['--types', 'nope'],
      ['--after', 'x'],
      ['--max', '0'],
      ['--party', ''],
    ]) {
      expect((await runCli(['events', 'tail', ...bad], env)).code, bad.join(' ')).toBe(2);
    }
    const scoped = { QUILL_URL: h.wallet.url, QUILL_TOKEN: await h.token('read', ALICE) };
    expect((await runCli(['events', 'tail', '--party', BOB], scoped)).code).toBe(1);
  });
});
