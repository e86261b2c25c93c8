// The webhook dispatcher: an event sink that follows the event log with its own cursor (starting at the end: a
// webhook gets events from when it was created on) and, in one Lua step per batch, appends each event id to the
// chain of every matching webhook and party and moves its cursor: no event is fanned out twice, none is skipped.
// It wakes the chains' jobs in this process, handing over an event that became its chain's head.
import type { Redis } from 'ioredis';
import { type ConsumerOptions, consumerStep } from '../../redis/consumer.ts';
import { loadScript, runScript } from '../../redis/scripts.ts';
import { decodeEntry, matches } from '../log.ts';
import type { ChainHead, ChainJob, Deliveries, DeliveryState } from './deliveries.ts';

const FAN_OUT = loadScript('fan-out');

/** The dispatcher as a consumer of the event log (run by drain.ts `startDelivery`). */
export function dispatcher(d: Deliveries, reader: Redis, count = 200): ConsumerOptions {
  const k = d.keys;
  return {
    name: 'webhook dispatcher',
    redis: d.redis,
    reader,
    stream: k.events,
    cursor: { key: k.webhookCursor, start: 'end' },
    batch: count,
    ...(d.log ? { log: d.log } : {}),
    handle: async (entries, from, to) => {
      const at = new Date().toISOString();
      const hooks = await d.hooks.listSigning();
      const keys: string[] = [];
      const args: string[] = [];
      // Per delivery, the head it would be if its append finds the chain empty (as `Deliveries.peek` reads it).
      const heads: { chain: string; head: ChainHead }[] = [];
      const chains = new Map<string, ChainJob>();
      for (const { id, fields } of entries) {
        const e = decodeEntry(id, fields);
        if (!e) continue;
        for (const hook of hooks) {
          const h = hook.webhook;
          if (!matches(e, { types: h.types, ...(h.party !== null ? { party: h.party } : {}) })) continue;
          const chain = k.webhookChain(h.id, e.party);
          keys.push(chain, k.webhookDeliveries(h.id));
          args.push(h.id, e.party, e.id);
          const state: DeliveryState = {
            eventId: e.id,
            party: e.party,
            state: 'pending',
            attempts: 0,
            queuedAt: at,
          };
          heads.push({ chain, head: { id: e.id, hook, state, event: e } });
          chains.set(chain, { webhook: h.id, party: e.party });
        }
      }
      const applied = await runScript(
        d.redis,
        FAN_OUT,
        [k.webhookCursor, k.webhookChains, ...keys],
        [from, to, at, ...args],
      );
      if (!Array.isArray(applied)) return;
      // The head an append made (its chain was empty): handed to the chain's job with its wake-up.
      const made = new Map<string, ChainHead>();
      heads.forEach(({ chain, head }, i) => {
        if (Number(applied[i + 1]) === 1) made.set(chain, head);
      });
      // A chain whose job in this process is still on it needs no job: it is woken, with its new head if any. Every
      // wake-up goes before the first kick's round trip, so none comes after its job read the head itself.
      const unattended = [...chains].filter(([chain]) => !d.draining.wake(chain, made.get(chain)));
      for (const [, c] of unattended) await d.kick(c);
    },
  };
}

/** One dispatcher step (tests, and a dispatcher that never ran: it sets its cursor at the log's end). */
export function dispatchStep(d: Deliveries, count = 200): Promise<number> {
  return consumerStep(dispatcher(d, d.redis, count))();
}
