/**
 * Paging helpers against a real HTTP server that serves `/v2/updates/flats` from an in-memory ledger the
 * way the participant does (range filter, ordering, `limit` truncation), including OffsetCheckpoints that
 * share their offset with the transaction before them.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerClient, type Update, updateOffset } from '../../src/ledger/index.ts';
import { json, startServer, type TestServer } from './http-server.ts';

let server: TestServer;
let ledger: Update[] = [];

function tx(offset: number): Update {
  return {
    Transaction: {
      value: {
        updateId: `1220${offset.toString(16).padStart(64, '0')}`,
        effectiveAt: '2025-01-01T00:00:00Z',
        events: [],
        offset,
        synchronizerId: 'sync::1220aa',
        recordTime: '2025-01-01T00:00:00Z',
      },
    },
  };
}

function checkpoint(offset: number): Update {
  return {
    OffsetCheckpoint: {
      value: {
        offset,
        synchronizerTimes: [{ synchronizerId: 'sync::1220aa', recordTime: '2025-01-01T00:00:01Z' }],
      },
    },
  };
}

/** Transactions at 1..n; a checkpoint after every offset in `checkpoints` (same offset). */
function makeLedger(n: number, checkpoints: number[] = []): Update[] {
  const out: Update[] = [];
  for (let o = 1; o <= n; o++) {
    out.push(tx(o));
    if (checkpoints.includes(o)) out.push(checkpoint(o));
  }
  return out;
}

beforeAll(async () => {
  server = await startServer((req, res) => {
    if (req.path === '/v2/state/ledger-end') {
      json(res, 200, { offset: ledger.length ? updateOffset(ledger.at(-1)!) : null });
      return;
    }
    const body = req.body as { beginExclusive: number; endInclusive?: number; descendingOrder?: boolean };
    const end = body.endInclusive ?? Number.MAX_SAFE_INTEGER;
    let items = ledger.filter((u) => updateOffset(u) > body.beginExclusive && updateOffset(u) <= end);
    if (body.descendingOrder) items = items.reverse();
    const limit = Number(req.query.get('limit') ?? '200');
    if (items.length > 200 && limit > 200) {
      json(res, 413, {
        code: 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
        cause: 'too many',
        context: {},
        errorCategory: 2,
      });
      return;
    }
    json(
      res,
      200,
      items.slice(0, limit).map((update) => ({ update })),
    );
  });
});
afterAll(async () => {
  await server.close();
});

async function collect(it: AsyncIterable<Update>): Promise<Update[]> {
  const out: Update[] = [];
  for await (const u of it) out.push(u);
  return out;
}

function expected(begin: number, end: number, descending: boolean): Update[] {
  const items = ledger.filter((u) => updateOffset(u) > begin && updateOffset(u) <= end);
  return descending ? items.reverse() : items;
}

/** Every update request needs a format (the participant refuses one with neither format nor filter). */
const FORMAT = {
  includeTransactions: {
    eventFormat: { filtersForAnyParty: {} },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' as const,
  },
};

describe('iterateUpdates', () => {
  it('pages ascending with limit and beginExclusive, re-asking only for the boundary offset', async () => {
    ledger = makeLedger(23);
    server.requests.length = 0;
    const client = new LedgerClient({ baseUrl: server.url });
    const got = await collect(
      client.iterateUpdates({ updateFormat: FORMAT, beginExclusive: 2, endInclusive: 20, pageSize: 5 }),
    );
    expect(got).toEqual(expected(2, 20, false));
    const flats = server.requests.filter((r) => r.path === '/v2/updates/flats');
    // Each later page asks again for the last offset seen (one element) plus a full page of new ones.
    expect(flats.map((r) => r.query.get('limit'))).toEqual(['5', '6', '6', '6']);
    expect(flats.map((r) => (r.body as { beginExclusive: number }).beginExclusive)).toEqual([2, 6, 11, 16]);
  });

  it('pages descending by moving endInclusive down', async () => {
    ledger = makeLedger(12);
    server.requests.length = 0;
    const client = new LedgerClient({ baseUrl: server.url });
    const got = await collect(
      client.iterateUpdates({
        updateFormat: FORMAT,
        beginExclusive: 0,
        endInclusive: 12,
        descendingOrder: true,
        pageSize: 4,
      }),
    );
    expect(got.map(updateOffset)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    const bodies = server.requests.map((r) => r.body as { endInclusive: number; descendingOrder: boolean });
    expect(bodies.every((b) => b.descendingOrder)).toBe(true);
    expect(bodies.map((b) => b.endInclusive)).toEqual([12, 9, 5, 1]);
  });

  it('is lazy: stopping early fetches only the pages consumed', async () => {
    ledger = makeLedger(1000);
    server.requests.length = 0;
    const client = new LedgerClient({ baseUrl: server.url });
    let n = 0;
    for await (const _ of client.iterateUpdates({
      updateFormat: FORMAT,
      beginExclusive: 0,
      endInclusive: 1000,
      pageSize: 10,
    })) {
      if (++n === 25) break;
    }
    expect(server.requests.length).toBe(3);
  });

  it('defaults endInclusive to the ledger end and pages over POST /v2/updates when asked', async () => {
    ledger = makeLedger(7);
    server.requests.length = 0;
    const client = new LedgerClient({ baseUrl: server.url });
    const got = await collect(
      client.iterateUpdates({ updateFormat: FORMAT, beginExclusive: 0, pageSize: 3, endpoint: 'updates' }),
    );
    expect(got.map(updateOffset)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(server.requests[0]!.path).toBe('/v2/state/ledger-end');
    expect(server.requests.slice(1).every((r) => r.path === '/v2/updates')).toBe(true);
  });

  it('refuses bad ranges before sending', async () => {
    const client = new LedgerClient({ baseUrl: server.url });
    server.requests.length = 0;
    await expect(
      collect(client.iterateUpdates({ updateFormat: FORMAT, beginExclusive: 0, pageSize: 201 })),
    ).rejects.toThrow(/pageSize/);
    await expect(
      collect(client.iterateUpdates({ updateFormat: FORMAT, beginExclusive: -1 })),
    ).rejects.toThrow(/beginExclusive/);
    await expect(
      collect(client.iterateUpdates({ updateFormat: FORMAT, beginExclusive: 0, descendingOrder: true })),
    ).rejects.toThrow(/endInclusive/);
    expect(server.requests).toHaveLength(0);
  });

  it('yields exactly the full range in either order, checkpoints at shared offsets included (property)', async () => {
    const client = new LedgerClient({ baseUrl: server.url });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 40 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 10 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 0, max: 45 }),
        fc.integer({ min: 0, max: 45 }),
        fc.boolean(),
        async (n, checkpoints, pageSize, a, b, descending) => {
          ledger = makeLedger(n, checkpoints);
          const [begin, end] = a <= b ? [a, b] : [b, a];
          const got = await collect(
            client.iterateUpdates({
              updateFormat: FORMAT,
              beginExclusive: begin,
              endInclusive: end,
              descendingOrder: descending,
              pageSize,
            }),
          );
          expect(got).toEqual(expected(begin, end, descending));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('vettedPackagesPages', () => {
  it('follows nextPageToken until it is empty', async () => {
    const pages: Record<string, { next: string; sync: string }> = {
      '': { next: 'tok-b', sync: 'a' },
      'tok-b': { next: 'tok-c', sync: 'b' },
      'tok-c': { next: '', sync: 'c' },
    };
    const s = await startServer((req, res) => {
      const token = (req.body as { pageToken?: string }).pageToken ?? '';
      const page = pages[token]!;
      json(res, 200, {
        vettedPackages: [
          {
            packages: [
              { packageId: `pkg-${page.sync}`, validFromInclusive: null, validUntilExclusive: null },
            ],
            participantId: 'PAR::p1::1220aa',
            synchronizerId: `${page.sync}::1220bb`,
            topologySerial: 1,
          },
        ],
        nextPageToken: page.next,
      });
    });
    try {
      const client = new LedgerClient({ baseUrl: s.url });
      const ids: string[] = [];
      for await (const page of client.vettedPackagesPages({ pageSize: 1 })) {
        for (const vp of page.vettedPackages ?? []) ids.push(vp.packages[0]!.packageId);
      }
      expect(ids).toEqual(['pkg-a', 'pkg-b', 'pkg-c']);
      expect(s.requests.map((r) => (r.body as { pageToken: string }).pageToken)).toEqual([
        '',
        'tok-b',
        'tok-c',
      ]);
      expect(s.requests.every((r) => r.path === '/v2/package-vetting/list')).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('stops with an error when the participant repeats a page token', async () => {
    const s = await startServer((_req, res) => json(res, 200, { vettedPackages: [], nextPageToken: 'same' }));
    try {
      const client = new LedgerClient({ baseUrl: s.url });
      const run = async () => {
        for await (const _ of client.vettedPackagesPages()) {
          /* drain */
        }
      };
      await expect(run()).rejects.toThrow(/repeated a page token/);
      expect(s.requests.length).toBe(2);
    } finally {
      await s.close();
    }
  });
});
