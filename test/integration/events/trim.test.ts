// Event retention by age (EventLog.trim, trim.lua): it removes the events older than the window and marks the newest
// it removed; while every event is inside the window it touches nothing, and does not look for the newest older one
// (that look walks the whole stream backwards when there is none: 20 ms at 24,000 events, every trim).
import { randomBytes } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { EventLog } from '../../../src/events/index.ts';
import { conn, monitorCommands } from '../../support/events.ts';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const ms = (id: string) => Number(id.split('-')[0]);

it('trims by age: nothing (and no backward walk) while every event is in the window, then exactly the older ones with the newest marked', async () => {
  const redis = conn();
  cleanup.push(() => redis.disconnect());
  const prefix = `trim-${randomBytes(4).toString('hex')}:`;
  const log = new EventLog(redis, prefix, { maxAgeMs: 60_000, maxCount: 0 });
  const commands: string[] = [];
  const monitor = await monitorCommands((args) => {
    if (args.includes(`${prefix}events`)) commands.push(String(args[0]).toLowerCase());
  });
  cleanup.push(() => monitor.close());

  const older = [
    await log.append('submission.accepted', 'alice::1220aa', { i: 0 }),
    await log.append('submission.accepted', 'alice::1220aa', { i: 1 }),
  ];
  await new Promise((r) => setTimeout(r, 5));
  const newer = await log.append('submission.accepted', 'alice::1220aa', { i: 2 });
  expect(ms(newer)).toBeGreaterThan(ms(older[1] as string));

  // Every event inside the window.
  expect(await log.trim(ms(older[0] as string) + 60_000)).toBe(0);
  expect(await log.trimmedThrough()).toBe('0-0');
  await new Promise((r) => setTimeout(r, 100)); // MONITOR's lines arrive after the replies
  expect(commands).toContain('xadd'); // the monitor sees the appends
  expect(commands).not.toContain('xrevrange');
  expect(commands).not.toContain('xtrim');

  // The window's start at the newer event: the two older ones go, the newest of them marked.
  expect(await log.trim(ms(newer) + 60_000)).toBe(2);
  expect(await log.trimmedThrough()).toBe(older[1]);
  expect(await log.expired(older[0] as string)).toBe(true);
  expect(await log.expired(older[1] as string)).toBe(false);
  expect((await redis.xrange(`${prefix}events`, '-', '+')).map(([id]) => id)).toEqual([newer]);
  await redis.del(`${prefix}events`, `${prefix}events:trimmed`);
});
