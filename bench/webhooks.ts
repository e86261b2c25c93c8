// Webhook delivery throughput: events appended to the event log, delivered by one in-process delivery worker
// (real BullMQ, real HTTP, signed) to a local receiver that verifies every signature. Prints deliveries/s for
// a few party counts (one chain per webhook and party: more parties, more chains in flight).
// Run: npm run bench:webhooks [-- --events 2000] (REDIS_URL to use an existing Redis; else a private redis-server)
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { type AddressInfo, createServer as netServer } from 'node:net';
import { Redis } from 'ioredis';
import {
  Deliveries,
  dispatchStep,
  EventLog,
  startDelivery,
  verifySignature,
  WebhookRegistry,
} from '../src/events/index.ts';

const argEvents = process.argv.indexOf('--events');
const EVENTS = argEvents > 0 ? Number(process.argv[argEvents + 1]) : 2000;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = netServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function conn(url: string): Redis {
  const r = new Redis(url, { maxRetriesPerRequest: null });
  r.on('error', () => {});
  return r;
}

async function run(redisUrl: string, parties: number, concurrency: number): Promise<number> {
  const prefix = `bench-wh-${randomBytes(3).toString('hex')}:`;
  const redis = conn(redisUrl);
  const log = new EventLog(redis, prefix);
  const hooks = new WebhookRegistry(redis, prefix);
  let secret = '';
  let ok = 0;
  let bad = 0;
  const seen = new Set<string>();
  let done: () => void = () => {};
  const finished = new Promise<void>((r) => {
    done = r;
  });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      if (verifySignature(String(req.headers['quill-signature']), body, secret)) ok++;
      else bad++;
      seen.add(JSON.parse(body).eventId);
      res.writeHead(204).end();
      if (seen.size === EVENTS) done();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  secret = (await hooks.create({ url, types: [], party: null, description: null })).secret;
  const d = new Deliveries(redis, conn(redisUrl), prefix, log, hooks, {
    allowPrivateTargets: true,
    timeoutMs: 10_000,
    retryBaseMs: 100,
    retryMaxDelayMs: 1000,
    retryForMs: 60_000,
    concurrency,
  });
  await dispatchStep(d);
  const pipe = redis.pipeline();
  for (let i = 0; i < EVENTS; i++)
    pipe.xadd(
      log.key,
      '*',
      'type',
      'submission.committed',
      'party',
      `p${i % parties}::1220`,
      'at',
      new Date().toISOString(),
      'body',
      '{}',
    );
  await pipe.exec();
  const started = performance.now();
  const runner = startDelivery(d, {
    connection: conn(redisUrl),
    reader: conn(redisUrl),
    pollMs: 100,
    sweepEveryMs: 500,
  });
  await finished;
  const seconds = (performance.now() - started) / 1000;
  await runner.stop();
  await d.close();
  server.close();
  redis.disconnect();
  if (bad > 0) throw new Error(`${bad} deliveries failed signature verification`);
  return ok / seconds;
}

async function main(): Promise<void> {
  let redisUrl = process.env.REDIS_URL;
  let redis: ChildProcess | undefined;
  if (!redisUrl) {
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    redisUrl = `redis://127.0.0.1:${port}`;
    await new Promise((r) => setTimeout(r, 300));
  }
  try {
    console.log(`webhook deliveries to a local receiver, ${EVENTS} events, signatures verified\n`);
    console.log('| parties (chains) | worker concurrency | deliveries/s |');
    console.log('|---|---|---|');
    for (const [parties, concurrency] of [
      [1, 16],
      [16, 16],
      [64, 64],
    ] as const) {
      const rate = await run(redisUrl, parties, concurrency);
      console.log(`| ${parties} | ${concurrency} | ${rate.toFixed(0)} |`);
    }
  } finally {
    redis?.kill();
  }
}

await main();
