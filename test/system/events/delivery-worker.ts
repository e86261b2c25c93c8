// A webhook delivery worker in a process of its own (SIGKILLed by test/events/faults.test.ts).
import { Redis } from 'ioredis';
import { Deliveries, EventLog, startDelivery, WebhookRegistry } from '../../../src/events/index.ts';

const url = process.env.REDIS_URL as string;
const prefix = process.env.PREFIX as string;
const conn = () => {
  const r = new Redis(url, { maxRetriesPerRequest: null });
  r.on('error', () => {});
  return r;
};
const redis = conn();
const log = new EventLog(redis, prefix);
const d = new Deliveries(redis, conn(), prefix, log, new WebhookRegistry(redis, prefix), {
  allowPrivateTargets: true,
  timeoutMs: 2000,
  retryBaseMs: 20,
  retryMaxDelayMs: 200,
  retryForMs: 120_000,
  concurrency: 4,
});
startDelivery(d, {
  connection: conn(),
  reader: conn(),
  sweepEveryMs: 300,
  pollMs: 200,
  lockDurationMs: 1000,
});
process.stdout.write('ready\n');
