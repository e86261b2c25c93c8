// The wake-up of a webhook chain's lingering job (deliveries.ts `Draining`): the dispatcher of the same process
// wakes it instead of the job asking Redis every few milliseconds, and no wake-up is lost between two waits.
import { describe, expect, it } from 'vitest';
import { Draining } from '../../../src/events/webhooks/deliveries.ts';

const elapsed = async (p: Promise<void>) => {
  const t = performance.now();
  await p;
  return performance.now() - t;
};

describe('Draining', () => {
  it('answers a chain with no job here with false: the dispatcher kicks a job for it', () => {
    const d = new Draining();
    expect(d.wake('c')).toBe(false);
    d.enter('c');
    expect(d.wake('c')).toBe(true);
    d.leave('c');
    expect(d.wake('c')).toBe(false);
  });

  it('ends a wait when the chain is woken, long before its timeout', async () => {
    const d = new Draining();
    d.enter('c');
    const waiting = d.wait('c', 5_000);
    setTimeout(() => d.wake('c'), 10);
    expect(await elapsed(waiting)).toBeLessThan(1_000);
  });

  it('keeps a wake-up that came while the job was delivering for its next wait, once', async () => {
    const d = new Draining();
    d.enter('c');
    d.wake('c');
    expect(await elapsed(d.wait('c', 5_000))).toBeLessThan(50);
    // Consumed: the next wait runs to its timeout.
    expect(await elapsed(d.wait('c', 60))).toBeGreaterThanOrEqual(55);
  });

  it('pauses a wait on a chain no job entered instead of answering at once', async () => {
    expect(await elapsed(new Draining().wait('c', 60))).toBeGreaterThanOrEqual(55);
  });

  it('wakes only the chain it names, and every chain when delivery stops', async () => {
    const d = new Draining();
    d.enter('a');
    d.enter('b');
    let bDone = false;
    const a = d.wait('a', 5_000);
    const b = d.wait('b', 5_000).then(() => {
      bDone = true;
    });
    d.wake('a');
    await a;
    expect(bDone).toBe(false);
    d.wakeAll();
    await b;
    expect(bDone).toBe(true);
  });
});
