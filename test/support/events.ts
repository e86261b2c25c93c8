// Event and webhook test helpers: a real HTTP receiver with a scripted behaviour, and delivery parts on the
// test run's Redis under a fresh prefix.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, inject } from 'vitest';
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

/**
 * Redis's MONITOR stream read over a plain socket: every command a client sent (or a script: source `lua`), as its
 * arguments. Not ioredis's `monitor()`: when its MONITOR's `+OK` and another client's first line arrive in one read,
 * it takes the line for the answer to a command ("Command queue state error"), which a busy test Redis makes happen.
 */
export async function monitorCommands(
  onCommand: (args: string[], source: string) => void,
): Promise<{ close(): void }> {
  const u = new URL(inject('redisUrl'));
  const socket = connect(Number(u.port || 6379), u.hostname);
  socket.setEncoding('latin1');
  socket.on('error', () => {});
  let pending = '';
  let started = false;
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('data', (chunk: string) => {
      pending += chunk;
      for (let nl = pending.indexOf('\r\n'); nl >= 0; nl = pending.indexOf('\r\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 2);
        if (!started) {
          started = line === '+OK';
          if (started) resolve();
          else reject(new Error(`MONITOR answered ${line}`));
          continue;
        }
        const m = /^\+[\d.]+ \[\d+ ([^\]]+)\] (.*)$/.exec(line);
        if (m) onCommand(monitorArgs(m[2] as string), m[1] as string);
      }
    });
    socket.write('MONITOR\r\n');
  });
  return { close: () => socket.destroy() };
}

/** `"xadd" "k" "a \"b\""` → its arguments (MONITOR quotes each, escaping as sdscatrepr does). */
function monitorArgs(text: string): string[] {
  const out: string[] = [];
  const escapes: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' };
  for (let i = text.indexOf('"'); i >= 0 && i < text.length; i = text.indexOf('"', i + 1)) {
    let v = '';
    for (i++; i < text.length && text[i] !== '"'; i++) {
      const c = text[i] as string;
      if (c !== '\\') v += c;
      else if (text[i + 1] === 'x') {
        v += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 4), 16));
        i += 3;
      } else {
        const e = text[i + 1] as string;
        v += escapes[e] ?? e;
        i++;
      }
    }
    out.push(v);
  }
  return out;
}

/** Opens connections to the test Redis, each closed once the calling file's tests are done. */
export function fileConnections(): () => Redis {
  const opened: Redis[] = [];
  afterAll(() => {
    for (const c of opened) c.disconnect();
  });
  return () => {
    const r = new Redis(inject('redisUrl'));
    opened.push(r);
    return r;
  };
}

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
