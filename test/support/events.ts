// Event and webhook test helpers: a real HTTP receiver with a scripted behaviour, and delivery parts on the
// test run's Redis under a fresh prefix.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { Deliveries, type DeliveryConfig, EventLog, WebhookRegistry } from '../../src/events/index.ts';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

/** `behave(n)` for the n-th request (1-based): a status to answer with, or 'hang' to never answer. */
export async function receiver(
  behave: (n: number, body: string) => number | 'hang' = () => 200,
  delayMs = 0,
) {
  const got: Received[] = [];
  const accepted: Received[] = [];
  let n = 0;
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const r: Received = { headers: req.headers, body, at: Date.now() };
      got.push(r);
      const what = behave(++n, body);
      if (what === 'hang') {
        hanging.push(res);
        return;
      }
      const answer = () => {
        if (res.destroyed) return;
        if (what >= 200 && what < 300) accepted.push(r);
        res.writeHead(what).end();
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    got,
    accepted,
    close: () =>
      new Promise<void>((r) => {
        for (const h of hanging) h.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export const fastDelivery: DeliveryConfig = {
  allowPrivateTargets: true,
  timeoutMs: 300,
  retryBaseMs: 20,
  retryMaxDelayMs: 100,
  retryForMs: 60_000,
  concurrency: 4,
};

export function conn(): Redis {
  const r = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
  r.on('error', () => {});
  return r;
}

export function parts(
  config: Partial<DeliveryConfig> = {},
  prefix = `ev-${randomBytes(4).toString('hex')}:`,
) {
  const redis = conn();
  const bull = conn();
  const log = new EventLog(redis, prefix);
  const hooks = new WebhookRegistry(redis, prefix);
  const deliveries = new Deliveries(redis, bull, prefix, log, hooks, { ...fastDelivery, ...config });
  return {
    prefix,
    redis,
    log,
    hooks,
    deliveries,
    async close() {
      await deliveries.close();
      redis.disconnect();
      bull.disconnect();
    },
  };
}

export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition') {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The entries of a deployment's event log (`<prefix>events`) of one type, as field maps. */
export async function eventsOfType(
  redis: Redis,
  prefix: string,
  type: string,
): Promise<Record<string, string>[]> {
  const entries = await redis.xrange(`${prefix}events`, '-', '+');
  return entries
    .map(([, f]) => Object.fromEntries(f.flatMap((_, i) => (i % 2 ? [] : [[f[i]!, f[i + 1]!]]))))
    .filter((e) => e.type === type);
}
