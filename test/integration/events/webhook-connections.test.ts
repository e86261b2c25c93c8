// What steady webhook traffic costs: connections are kept alive and pooled by the addresses that were checked (many
// events go over a few connections, a kept socket the receiver dropped is replaced without a failed attempt, a
// target whose check answers another address never reuses a socket to the first one), a chain that keeps
// receiving events is drained by one BullMQ job, not a job per event, and each event costs one round trip to Redis.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { dispatchStep, startDelivery } from '../../../src/events/index.ts';
import { conn, monitorCommands, parts, until } from '../../support/events.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/**
 * A receiver on `host:port` (0: any) that answers 200 and counts its connections. `dropNth` (n ≥ 2) destroys a
 * connection when its n-th request arrives, before answering: a kept socket closed under the sender.
 */
async function counting(host = '127.0.0.1', port = 0, dropNth = 0) {
  const got: { body: string; socket: Socket; headers: IncomingMessage['headers'] }[] = [];
  const sockets = new Set<Socket>();
  const perSocket = new Map<Socket, number>();
  const server = createServer((req, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (dropNth > 0 && n === dropNth) {
        req.socket.destroy();
        return;
      }
      got.push({ body: Buffer.concat(chunks).toString(), socket: req.socket, headers: req.headers });
      res.writeHead(200).end();
    });
  });
  server.on('connection', (s: Socket) => sockets.add(s));
  await new Promise<void>((r) => server.listen(port, host, r));
  cleanup.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { port: (server.address() as AddressInfo).port, got, connections: () => sockets.size };
}

/** Delivery parts with one webhook for every event to `url`, the delivery worker started. */
async function delivering(url: string, config: Parameters<typeof parts>[0] = {}) {
  const p = parts(config);
  cleanup.push(() => p.close());
  const { webhook } = await p.hooks.create({ url, types: [], party: null, description: null });
  const runner = startDelivery(p.deliveries, {
    connection: conn(),
    reader: conn(),
    sweepEveryMs: 200,
    pollMs: 50,
  });
  cleanup.push(() => runner.stop());
  await dispatchStep(p.deliveries); // sets the cursor at the (empty) end
  return { ...p, webhook };
}

/** Until the delivery log shows `n` events delivered (the receiver answers before the worker notes it). */
function delivered(p: Awaited<ReturnType<typeof delivering>>, n: number) {
  return until(
    async () => {
      const states = await p.deliveries.list(p.webhook.id, 100);
      return states.length === n && states.every((s) => s.state === 'delivered');
    },
    10_000,
    'the delivery log',
  );
}

/** Long enough that a loaded machine never turns a slow answer into a timeout and a second attempt. */
const PATIENT = { timeoutMs: 10_000 };

describe('webhook connections', () => {
  it('forty events to one receiver, two parties: at most two connections, every event delivered once', async () => {
    const rx = await counting();
    const p = await delivering(`http://127.0.0.1:${rx.port}/hook`, PATIENT);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++)
      ids.push(await p.log.append('submission.accepted', i % 2 ? 'alice::1220aa' : 'bob::1220bb', { i }));
    await until(() => rx.got.length >= 40, 15_000, 'forty deliveries');
    await delivered(p, 40);
    expect(rx.got.map((g) => JSON.parse(g.body).eventId).sort()).toEqual([...ids].sort());
    // One chain per party, each drained by one job at a time: a socket each, kept between events.
    expect(rx.connections()).toBeLessThanOrEqual(2);
    const states = await p.deliveries.list(p.webhook.id, 100);
    expect(states.every((s) => s.state === 'delivered' && s.attempts === 1)).toBe(true);
  });

  it('a kept socket the receiver drops before answering is replaced at once: no failed attempt', async () => {
    // Every connection's second request is cut off: each event after the first goes out twice, the second time
    // on a new connection.
    const rx = await counting('127.0.0.1', 0, 2);
    const p = await delivering(`http://127.0.0.1:${rx.port}/hook`, PATIENT);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await p.log.append('submission.accepted', 'alice::1220aa', { i }));
    await until(() => rx.got.length >= 5, 15_000, 'five deliveries');
    await delivered(p, 5);
    expect(rx.got.map((g) => JSON.parse(g.body).eventId)).toEqual(ids);
    const states = await p.deliveries.list(p.webhook.id, 10);
    expect(states.map((s) => s.attempts)).toEqual([1, 1, 1, 1, 1]);
    expect(states.flatMap((s) => s.attemptLog.map((a) => a.error))).toEqual([null, null, null, null, null]);
    expect(rx.connections()).toBe(5);
  });

  it('a name that resolves to another checked address gets a connection of its own', async () => {
    const first = await counting('127.0.0.1');
    const second = await counting('127.0.0.2', first.port);
    let answer = '127.0.0.1';
    const p = await delivering(`http://receiver.quill.test:${first.port}/hook`, {
      resolve: async () => [{ address: answer, family: 4 }],
    });
    await p.log.append('submission.accepted', 'alice::1220aa', { i: 1 });
    await until(() => first.got.length === 1, 10_000, 'the first delivery');
    answer = '127.0.0.2';
    await p.log.append('submission.accepted', 'alice::1220aa', { i: 2 });
    await until(() => second.got.length === 1, 10_000, 'the second delivery');
    expect(first.got).toHaveLength(1);
    expect(second.got[0]?.headers.host).toBe(`receiver.quill.test:${first.port}`);
  });

  it('thirty events: each head is read with its webhook, state and event in one script, and settled in one', async () => {
    const rx = await counting();
    const p = await delivering(`http://127.0.0.1:${rx.port}/hook`, PATIENT);
    // Every command a client sent naming the webhook registry, as Redis sees it (MONITOR; not a script's own calls).
    const reads: string[][] = [];
    const monitor = await monitorCommands((args, source) => {
      if (source !== 'lua' && args.includes(`${p.prefix}webhooks`)) reads.push(args);
    });
    cleanup.push(async () => monitor.close());
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await p.log.append('submission.accepted', 'alice::1220aa', { i }));
    await until(() => rx.got.length >= 30, 15_000, 'thirty deliveries');
    await delivered(p, 30);
    expect(rx.got.map((g) => JSON.parse(g.body).eventId)).toEqual(ids);
    // No read of the webhook on its own (HGET; the dispatcher's HVALS lists them all): a step reads it with its head
    // in a script, the settle (six keys) once per event, the look at a chain's head (four keys) when a drain begins
    // or polls.
    const scripts = reads.filter((a) => a[0]?.toLowerCase() === 'evalsha');
    expect(reads.filter((a) => a[0]?.toLowerCase() === 'hget')).toHaveLength(0);
    expect(scripts.filter((a) => a[2] === '6')).toHaveLength(30);
    expect(scripts.filter((a) => a[2] === '4').length).toBeGreaterThan(0);
  });

  it('events arriving 40 ms apart are drained by one job, and the last one still arrives', async () => {
    const rx = await counting();
    const p = await delivering(`http://127.0.0.1:${rx.port}/hook`);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      ids.push(await p.log.append('submission.accepted', 'alice::1220aa', { i }));
      await new Promise((r) => setTimeout(r, 40));
    }
    await until(() => rx.got.length >= 20, 10_000, 'twenty deliveries');
    expect(rx.got.map((g) => JSON.parse(g.body).eventId)).toEqual(ids);
    // BullMQ notes every job it adds in the queue's event stream.
    const events = await p.redis.xrange(`${p.prefix}bull:webhooks:events`, '-', '+');
    const added = events.filter(([, f]) => f[1] === 'added').length;
    expect(added).toBeGreaterThanOrEqual(1);
    expect(added).toBeLessThanOrEqual(2);
  });
});
