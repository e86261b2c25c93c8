// Kept-alive connections to webhook targets, pooled by the addresses that were checked (targets.ts), never by name:
// a socket is only reused for a target whose check answered the same addresses, so DNS rebinding cannot route a
// delivery over a connection to an address that was not checked for it. Before pooling, every POST opened (and,
// for https, negotiated) a connection of its own, which the receiver waited for.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Target } from './targets.ts';

/** Pools kept at once (one per protocol, checked addresses, port and name); the least recently used goes first. */
const MAX_POOLS = 64;
/** An idle socket is closed after this, or 1 s before the receiver's own `Keep-Alive: timeout=N` hint. */
const IDLE_MS = 15_000;

export interface Connections {
  /** The agent to POST to `t` with: its sockets connect only to `t.addresses`. */
  agent(t: Target): HttpAgent;
  /** Closes every pooled socket. */
  close(): void;
}

export function connections(): Connections {
  const pools = new Map<string, HttpAgent>();
  return {
    agent(t) {
      const https = t.url.protocol === 'https:';
      const port = t.url.port || (https ? '443' : '80');
      const addresses = t.addresses.map((a) => `${a.family}/${a.address}`).join(',');
      const key = `${t.url.protocol}|${addresses}|${port}|${t.host}`;
      let agent = pools.get(key);
      if (agent) {
        pools.delete(key); // moved to the end: most recently used
      } else {
        const all = t.addresses;
        const first = all[0] as Target['addresses'][number];
        // The socket's lookup answers the checked addresses instead of resolving the name again.
        const lookup = ((_name, opts, cb) => {
          if (opts.all) cb(null, all);
          else cb(null, first.address, first.family);
        }) as LookupFunction;
        const options = { keepAlive: true, timeout: IDLE_MS, lookup };
        agent = https
          ? new HttpsAgent({ ...options, ...(isIP(t.host) ? {} : { servername: t.host }) })
          : new HttpAgent(options);
        if (pools.size >= MAX_POOLS) {
          const [oldest, old] = pools.entries().next().value as [string, HttpAgent];
          pools.delete(oldest);
          old.destroy();
        }
      }
      pools.set(key, agent);
      return agent;
    },
    close() {
      for (const a of pools.values()) a.destroy();
      pools.clear();
    },
  };
}
