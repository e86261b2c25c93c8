// The watcher's token-standard reads on the sandbox over real HTTP: it asks for the Holding and TransferInstruction
// interfaces with their views, and on a participant without the token-standard packages (404
// PACKAGE_NAMES_NOT_FOUND for such a filter) it warns once and goes on indexing without them.
import { randomBytes } from 'node:crypto';
import { LedgerClient, LedgerError } from '@quill/canton/ledger';
import { mint, type Sandbox, startSandbox } from '@quill/sandbox';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HistoryIndex, LedgerWatcher, type WatcherLedger } from '../../../src/history/index.ts';
import { Lease } from '../../../src/redis/lease.ts';
import { until } from '../../support/events.ts';
import { testRedis } from '../../support/records.ts';

let sb: Sandbox;
let redis: Redis;
let client: LedgerClient;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, scanPort: 0, host: '127.0.0.1', auth: 'none' });
  redis = testRedis();
  client = new LedgerClient({ baseUrl: sb.url, timeoutMs: 10_000 });
});
afterAll(async () => {
  redis.disconnect();
  await sb.close();
});

/** The sandbox's ledger as a participant without the token-standard packages answers filters naming them. */
function withoutTokenPackages(): WatcherLedger & { refused: number } {
  const names = (body: unknown) => JSON.stringify(body).includes('InterfaceFilter');
  const refuse = () =>
    new LedgerError({
      code: 'PACKAGE_NAMES_NOT_FOUND',
      message: 'The following package names do not match upgradable packages uploaded on this participant',
      status: 404,
      errorCategory: 11,
    });
  const ledger = {
    refused: 0,
    latestPrunedOffsets: client.latestPrunedOffsets.bind(client),
    ledgerEndOffset: client.ledgerEndOffset.bind(client),
    updatesFlats: ((body, opts) => {
      if (names(body)) {
        ledger.refused++;
        return Promise.reject(refuse());
      }
      return client.updatesFlats(body, opts);
    }) as LedgerClient['updatesFlats'],
    iterateUpdates: ((range, opts) => {
      if (names(range)) {
        ledger.refused++;
        // biome-ignore lint/correctness/useYield: refuses before the first page, as the participant does
        return (async function* () {
          throw refuse();
        })();
      }
      return client.iterateUpdates(range, opts);
    }) as LedgerClient['iterateUpdates'],
  };
  return ledger;
}

it('indexes the history without the token interfaces on a participant that lacks their packages, warning once', async () => {
  const alice = sb.state.allocateLocalParty(`alice-${randomBytes(3).toString('hex')}`).partyId;
  const prefix = `wtk-${randomBytes(4).toString('hex')}:`;
  const index = new HistoryIndex(redis, prefix);
  const ledger = withoutTokenPackages();
  const warnings: string[] = [];
  const w = new LedgerWatcher({
    ledger,
    index,
    lease: new Lease(redis, `${prefix}watch:lease`, { ttlMs: 600 }),
    parties: async () => [alice],
    pageSize: 50,
    idleTimeoutMs: 50,
    backoff: { initialMs: 20, maxMs: 200 },
    log: (level, msg) => {
      if (level === 'warn') warnings.push(msg);
    },
  });
  for (let i = 0; i < 5; i++) mint(sb.state, alice, '1.0');
  w.start();
  try {
    await until(async () => (await index.count(alice)) === 5, 15_000, 'history indexed');
    mint(sb.state, alice, '1.0');
    await until(async () => (await index.count(alice)) === 6, 15_000, 'a new update indexed');
  } finally {
    await w.stop();
  }
  expect(ledger.refused).toBeGreaterThan(0);
  expect(warnings.filter((m) => m.includes('no token-standard packages'))).toHaveLength(1);
  expect(await index.holdings(alice)).toEqual([]); // no views were read
});

it('reads holdings through the interface view on a participant that has them', async () => {
  const alice = sb.state.allocateLocalParty(`alice-${randomBytes(3).toString('hex')}`).partyId;
  const prefix = `wtk-${randomBytes(4).toString('hex')}:`;
  const index = new HistoryIndex(redis, prefix);
  const w = new LedgerWatcher({
    ledger: client,
    index,
    lease: new Lease(redis, `${prefix}watch:lease`, { ttlMs: 600 }),
    parties: async () => [alice],
    pageSize: 50,
    idleTimeoutMs: 50,
  });
  mint(sb.state, alice, '1.5');
  mint(sb.state, alice, '2.0');
  w.start();
  try {
    await until(async () => (await index.holdings(alice)).length === 2, 15_000, 'holdings indexed');
  } finally {
    await w.stop();
  }
  const held = await index.holdings(alice);
  expect(held.map((h) => [h.instrument.id, h.amount]).sort()).toEqual([
    ['QuillCoin', '1.5000000000'],
    ['QuillCoin', '2.0000000000'],
  ]);
  expect(held.every((h) => h.owner === alice && h.lock === null)).toBe(true);
});
