// The relay: turns submission outbox entries into events. Each step runs in one Lua script that reads the
// outbox after the relay's cursor, appends one event per entry and moves the cursor, all at once: a relay that
// dies between steps loses nothing, and two relays running side by side cannot double an event.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Log } from '../log.ts';
import { type LuaScript, runScript } from '../submissions/index.ts';
import type { EventLog } from './log.ts';

function script(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * ARGV: 1 prefix, 2 count. The body is the record as it is when the relay passes (never the prepared
 * transaction or signatures: those live in another field); the type comes from the status the entry names:
 * final → submission.<status>, awaiting_approval → submission.awaiting_approval, anything else (creation) →
 * submission.accepted. Returns the number of entries passed.
 */
export const RELAY = script(`
local p = ARGV[1]
local after = redis.call('GET', p .. 'events:relay:cursor') or '0-0'
local entries = redis.call('XRANGE', p .. 'outbox', '(' .. after, '+', 'COUNT', tonumber(ARGV[2]))
local TYPES = { committed = 'submission.committed', rejected = 'submission.rejected',
  expired = 'submission.expired', awaiting_approval = 'submission.awaiting_approval' }
for _, e in ipairs(entries) do
  local f = {}
  for i = 1, #e[2], 2 do f[e[2][i]] = e[2][i + 1] end
  local t = TYPES[f.status or ''] or 'submission.accepted'
  local body = 'null'
  if f.id then body = redis.call('HGET', p .. 'sub:' .. f.id, 'record') or 'null' end
  redis.call('XADD', p .. 'events', '*', 'type', t, 'party', f.party or '', 'at', f.at or '', 'body', body)
end
if #entries > 0 then redis.call('SET', p .. 'events:relay:cursor', entries[#entries][1]) end
return #entries
`);

export interface RelayOptions {
  redis: Redis;
  /** A connection of its own: waiting for new outbox entries blocks it. */
  reader: Redis;
  prefix: string;
  events: EventLog;
  /** How long one wait for the outbox blocks, and the pause after a failure. */
  pollMs?: number;
  /** How often retention runs. */
  trimEveryMs?: number;
  log?: Log;
}

/** One relay step: moves up to `count` outbox entries into the event log. */
export async function relayStep(redis: Redis, prefix: string, count = 200): Promise<number> {
  return Number(await runScript(redis, RELAY, [], [prefix.endsWith(':') ? prefix : `${prefix}:`, count]));
}

/** Runs the relay (and event retention) until `stop`. */
export function startRelay(o: RelayOptions): { stop(): Promise<void> } {
  const prefix = o.prefix.endsWith(':') ? o.prefix : `${o.prefix}:`;
  const pollMs = o.pollMs ?? 1000;
  const trimEvery = o.trimEveryMs ?? 60_000;
  let stopped = false;
  let lastTrim = 0;
  const running = (async () => {
    while (!stopped) {
      try {
        const n = await relayStep(o.redis, prefix);
        if (Date.now() - lastTrim >= trimEvery) {
          lastTrim = Date.now();
          await o.events.trim();
        }
        if (n > 0) continue;
        const cursor = (await o.redis.get(`${prefix}events:relay:cursor`)) ?? '0-0';
        await o.reader.xread('COUNT', 1, 'BLOCK', pollMs, 'STREAMS', `${prefix}outbox`, cursor);
      } catch (err) {
        if (stopped) break;
        o.log?.('warn', `event relay: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, pollMs));
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      o.reader.disconnect();
      await running;
    },
  };
}
