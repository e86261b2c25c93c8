// The wake-up of a webhook chain's lingering job (deliveries.ts `Draining`): the dispatcher of the same process
// wakes it instead of the job asking Redis every few milliseconds, no wake-up is lost between two waits, and a head
// handed over with a wake-up is delivered once.
import { describe, expect, it } from 'vitest';
import { type ChainHead, Draining } from '../../../src/events/webhooks/deliveries.ts';

const elapsed = async (p: Promise<unknown>) => {
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

  const head = (id: string): ChainHead => ({ id, hook: undefined, state: undefined, event: undefined });

  it('answers the next wait with a head handed over with the wake-up, once', async () => {
    const d = new Draining();
    d.enter('c');
    const waiting = d.wait('c', 5_000);
    d.wake('c', head('1-0'));
    expect((await waiting)?.id).toBe('1-0');
    d.wake('c');
    expect(await d.wait('c', 5_000)).toBeUndefined();
    // A head handed while the job delivered waits for its next wait.
    d.wake('c', head('2-0'));
    expect((await d.wait('c', 5_000))?.id).toBe('2-0');
  });

  it('drops a handed head the job already removed from the chain, whichever came first', async () => {
    const d = new Draining();
    d.enter('c');
    // The job read the event itself, and the wake-up that hands it over comes before the job removed it ...
    d.wake('c', head('1-0'));
    d.settled('c', '1-0');
    expect(await d.wait('c', 5_000)).toBeUndefined();
    // ... or after.
    d.settled('c', '2-0');
    d.wake('c', head('2-0'));
    expect(await d.wait('c', 5_000)).toBeUndefined();
    // Another event's head is still handed over.
    d.settled('c', '3-0');
    d.wake('c', head('4-0'));
    expect((await d.wait('c', 5_000))?.id).toBe('4-0');
  });

  it('forgets a handed head when the job leaves the chain', async () => {
    const d = new Draining();
    d.enter('c');
    d.wake('c', head('1-0'));
    d.leave('c');
    expect(d.wake('c', head('2-0'))).toBe(false);
    d.enter('c');
    expect(await d.wait('c', 30)).toBeUndefined();
  });
});
