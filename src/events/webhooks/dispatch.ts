// The webhook dispatcher: an event sink that follows the event log with its own cursor (starting at the end: a
// webhook gets events from when it was created on) and, in one Lua step per batch, appends each event id to the
// chain of every matching webhook and party and moves its cursor: no event is fanned out twice, none is skipped.
import type { Redis } from 'ioredis';
import { type ConsumerOptions, consumerStep } from '../../redis/consumer.ts';
import { loadScript, runScript } from '../../redis/scripts.ts';
import { decodeEntry, matches } from '../log.ts';
import type { ChainJob, Deliveries } from './deliveries.ts';

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
      const hooks = await d.hooks.list();
      const keys: string[] = [];
      const args: string[] = [];
      const chains = new Map<string, ChainJob>();
      for (const { id, fields } of entries) {
        const e = decodeEntry(id, fields);
        if (!e) continue;
        for (const h of hooks) {
          if (!matches(e, { types: h.types, ...(h.party !== null ? { party: h.party } : {}) })) continue;
          keys.push(k.webhookChain(h.id, e.party), k.webhookDeliveries(h.id));
          args.push(h.id, e.party, e.id);
          chains.set(`${h.id}|${e.party}`, { webhook: h.id, party: e.party });
        }
      }
      const applied = await runScript(
        d.redis,
        FAN_OUT,
        [k.webhookCursor, k.webhookChains, ...keys],
        [from, to, new Date().toISOString(), ...args],
      );
      if (Number(applied) !== 1) return;
      // A chain whose job in this process is still on it needs no job: it is woken to read the chain again.
      for (const c of chains.values())
        if (!d.draining.wake(k.webhookChain(c.webhook, c.party))) await d.kick(c);
    },
  };
}

/** One dispatcher step (tests, and a dispatcher that never ran: it sets its cursor at the log's end). */
export function dispatchStep(d: Deliveries, count = 200): Promise<number> {
  return consumerStep(dispatcher(d, d.redis, count))();
}
