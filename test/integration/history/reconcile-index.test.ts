// An unknown outcome settled from the watcher's index: no ledger call at all.
import { randomBytes } from 'node:crypto';
import type { JsTransaction } from '@quill/canton/ledger';
import { afterAll, expect, it } from 'vitest';
import { HistoryIndex } from '../../../src/history/index.ts';
import { type LedgerPort, reconcile } from '../../../src/submissions/index.ts';
import { testRedis } from '../../support/records.ts';

const redis = testRedis();
afterAll(() => redis.disconnect());

it('reconcile finds the transaction in the index without calling the ledger', async () => {
  const index = new HistoryIndex(redis, `r-${randomBytes(4).toString('hex')}`);
  const hash = 'ab'.repeat(32);
  const transaction = {
    updateId: 'u-1',
    offset: 7,
    commandId: 'cmd-1',
    externalTransactionHash: hash,
    events: [],
    synchronizerId: 's',
    effectiveAt: '2026-01-01T00:00:00Z',
    recordTime: '2026-01-01T00:00:00Z',
  } as unknown as JsTransaction;
  await index.ingest({
    transactions: [
      {
        updateId: 'u-1',
        offset: 7,
        recordTime: transaction.recordTime,
        commandId: 'cmd-1',
        externalTransactionHash: hash,
        parties: ['alice::1220'],
        transaction,
      },
    ],
    checkpoint: 7,
  });
  let calls = 0;
  const count = <T>(v: T) => {
    calls++;
    return v;
  };
  const ledger: LedgerPort = {
    execute: () => count(Promise.reject(new Error('no'))),
    ledgerEnd: () => count(Promise.resolve(1000)),
    transactionAt: () => count(Promise.resolve(undefined)),
    transactions: () => count((async function* () {})()),
    indexed: async (h) => (await index.byHash(h))?.transaction,
  };
  const found = await reconcile(ledger, {
    party: 'alice::1220',
    hashHex: hash,
    commandId: 'cmd-1',
    fromOffset: 0,
  });
  expect(found.found).toBe('ours');
  expect(calls).toBe(0);
  // Not in the index: the ledger is searched as before.
  const miss = await reconcile(ledger, {
    party: 'alice::1220',
    hashHex: 'cd'.repeat(32),
    commandId: 'cmd-2',
    fromOffset: 0,
  });
  expect(miss.found).toBe('none');
  expect(calls).toBeGreaterThan(0);
});
