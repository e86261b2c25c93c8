// The read side as strict as the participant (issue 26, review tables A9, A11–A14, A16, A19). Each test names the
// canton 3.5 rule it copies; error answers are checked for status, code, category and context, and every answer
// against the 3.5 spec.
import { LedgerClient } from '@quill/canton/ledger';
import { ledgerSpec } from '@quill/canton/testing/openapi';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  call,
  executeBody,
  expectLedgerError,
  onboard,
  type Party,
  prepareBody,
  run,
  type Sandbox,
  sandboxWithAdmin,
  tapCommand,
} from './helpers.ts';

const FLATS = '/v2/updates/flats';
const UPDATES = '/v2/updates';
const TREES = '/v2/updates/trees';
/** Short cache interval and idle-checkpoint timeout, so the tests do not wait 15 s and 60 s. */
const INTERVAL_MS = 150;

let sb: Sandbox;
let admin: string;
let alice: Party;
let noise: Party;
let aliceTx: { updateId: string; offset: number };

const transactionsOf = (party: string) => ({
  includeTransactions: {
    eventFormat: { filtersByParty: { [party]: {} } },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
  },
});
type Item = { update: Record<string, { value: { offset: number } }> };
const kinds = (items: Item[]) => items.map((u) => Object.keys(u.update)[0]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin({
    options: { checkpointIntervalMs: INTERVAL_MS, idleCheckpointTimeoutMs: 400 },
  }));
  alice = await onboard(sb, admin);
  noise = await onboard(sb, admin);
  await call(
    sb.url,
    'POST',
    '/v2/users/participant_admin/rights',
    { userId: 'participant_admin', rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }] },
    admin,
  );
  aliceTx = await run(sb, alice, [tapCommand(sb, alice.partyId, '1.0000000000')]);
  for (let i = 0; i < 3; i++) await run(sb, noise, [tapCommand(sb, noise.partyId, '1.0000000000')]);
});
afterAll(async () => {
  await sb?.close();
});

describe('an empty updateFormat {} is valid (FormatValidator.validate(UpdateFormat); A12)', () => {
  test('streams answer [] (IndexServiceImpl.memoizedInternalUpdateFormat → None)', async () => {
    const end = sb.state.log.end;
    for (const path of [FLATS, UPDATES]) {
      const bounded = await call(
        sb.url,
        'POST',
        path,
        { beginExclusive: 0, endInclusive: end, updateFormat: {} },
        admin,
      );
      expect([bounded.status, bounded.json]).toEqual([200, []]);
      ledgerSpec().expectValidResponse(path, 'post', 200, bounded.json);
      const open = await call(
        sb.url,
        'POST',
        `${path}?stream_idle_timeout_ms=50`,
        { beginExclusive: end, updateFormat: {} },
        admin,
      );
      expect([open.status, open.json]).toEqual([200, []]);
    }
  });

  test('update-by-offset and update-by-id are 404 UPDATE_NOT_FOUND (getUpdateBy: None → not found)', async () => {
    const byOffset = await expectLedgerError(
      sb.url,
      {
        specPath: '/v2/updates/update-by-offset',
        method: 'POST',
        path: '/v2/updates/update-by-offset',
        body: { offset: aliceTx.offset, updateFormat: {} },
        token: admin,
      },
      404,
      'UPDATE_NOT_FOUND',
    );
    expect(byOffset.errorCategory).toBe(11);
    expect(byOffset.resources).toEqual([['OFFSET', String(aliceTx.offset)]]);
    const byId = await expectLedgerError(
      sb.url,
      {
        specPath: '/v2/updates/update-by-id',
        method: 'POST',
        path: '/v2/updates/update-by-id',
        body: { updateId: aliceTx.updateId, updateFormat: {} },
        token: admin,
      },
      404,
      'UPDATE_NOT_FOUND',
    );
    expect(byId.resources).toEqual([['UPDATE_ID', aliceTx.updateId]]);
  });

  test('the client sends it too (the shared rule checkUpdateFormat no longer refuses it; B9)', async () => {
    const client = new LedgerClient({ baseUrl: sb.url, token: admin });
    const end = await client.ledgerEndOffset();
    expect(await client.updatesFlats({ beginExclusive: 0, endInclusive: end, updateFormat: {} })).toEqual([]);
  });
});

describe('OffsetCheckpoints (IndexServiceImpl.updates checkpointFlow; A13)', () => {
  test('a bounded range never carries one (cond = endInclusive.isEmpty)', async () => {
    const end = sb.state.log.end;
    await sleep(INTERVAL_MS * 2); // the cache holds the ledger end by now
    for (const updateFormat of [transactionsOf(alice.partyId), transactionsOf(noise.partyId)]) {
      const res = await call(
        sb.url,
        'POST',
        FLATS,
        { beginExclusive: 0, endInclusive: end, updateFormat },
        admin,
      );
      expect(res.status).toBe(200);
      expect(kinds(res.json)).not.toContain('OffsetCheckpoint');
      expect(kinds(res.json).length).toBeGreaterThan(0);
    }
  });

  test('an open-ended stream carries the cached checkpoint once past its offset, spaced by the cache interval', async () => {
    const begin = aliceTx.offset;
    await run(sb, noise, [tapCommand(sb, noise.partyId, '1.0000000000')]);
    const end = sb.state.log.end;
    await sleep(INTERVAL_MS * 2); // a tick of the cache took `end`
    const res = await call(
      sb.url,
      'POST',
      `${FLATS}?stream_idle_timeout_ms=200`,
      { beginExclusive: begin, updateFormat: transactionsOf(alice.partyId) },
      alice.token,
    );
    ledgerSpec().expectValidResponse(FLATS, 'post', 200, res.json);
    expect(kinds(res.json)).toEqual(['OffsetCheckpoint']);
    const cp = res.json[0].update.OffsetCheckpoint.value;
    expect(cp.offset).toBe(end);
    expect(cp.synchronizerTimes.map((t: { synchronizerId: string }) => t.synchronizerId)).toEqual([
      sb.state.defaultSynchronizer,
    ]);
    // Nothing newer than the cache: a stream starting at it waits for the 500 ms look, then gets it once.
    const atEnd = await call(
      sb.url,
      'POST',
      `${FLATS}?stream_idle_timeout_ms=900`,
      { beginExclusive: end, updateFormat: transactionsOf(alice.partyId) },
      alice.token,
    );
    expect(atEnd.json.map((u: Item) => u.update.OffsetCheckpoint?.value.offset)).toEqual([end]);
  });

  test('with the participant default interval (15 s) a fresh stream sees no checkpoint within a second', async () => {
    const other = await sandboxWithAdmin();
    try {
      const p = await onboard(other.sb, other.admin);
      await run(other.sb, p, [tapCommand(other.sb, p.partyId, '1.0000000000')]);
      const res = await call(
        other.sb.url,
        'POST',
        `${FLATS}?stream_idle_timeout_ms=700`,
        { beginExclusive: 0, updateFormat: transactionsOf(p.partyId) },
        p.token,
      );
      expect(kinds(res.json)).toEqual(['Transaction']);
      // LedgerApiServer.getLedgerFeatures: cache interval (15 s) + idle-stream timeout (60 s).
      const version = await call(other.sb.url, 'GET', '/v2/version', undefined, other.admin);
      expect(version.json.features.offsetCheckpoint).toEqual({
        maxOffsetCheckpointEmissionDelay: { seconds: 75, nanos: 0 },
      });
      ledgerSpec().expectValidResponse('/v2/version', 'get', 200, version.json);
    } finally {
      await other.sb.close();
    }
  });
});

describe('offsets (UpdateServiceRequestValidator.validate, IndexServiceImpl.between; A9)', () => {
  test('beginExclusive after the ledger end is OFFSET_AFTER_LEDGER_END even when endInclusive < begin', async () => {
    const end = sb.state.log.end;
    const e = await expectLedgerError(
      sb.url,
      {
        specPath: FLATS,
        method: 'POST',
        path: FLATS,
        body: { beginExclusive: end + 5, endInclusive: end + 1, updateFormat: transactionsOf(alice.partyId) },
        token: admin,
      },
      400,
      'OFFSET_AFTER_LEDGER_END',
    );
    expect(e.errorCategory).toBe(12);
    expect(e.retryInfo).toBe('1 second');
  });

  test('within the ledger, end < begin is still OFFSET_OUT_OF_RANGE; a negative begin still NEGATIVE_OFFSET', async () => {
    const end = sb.state.log.end;
    await expectLedgerError(
      sb.url,
      {
        specPath: FLATS,
        method: 'POST',
        path: FLATS,
        body: { beginExclusive: end, endInclusive: end - 1, updateFormat: transactionsOf(alice.partyId) },
        token: admin,
      },
      400,
      'OFFSET_OUT_OF_RANGE',
    );
    await expectLedgerError(
      sb.url,
      {
        specPath: FLATS,
        method: 'POST',
        path: FLATS,
        body: { beginExclusive: -1, endInclusive: end + 9, updateFormat: transactionsOf(alice.partyId) },
        token: admin,
      },
      400,
      'NEGATIVE_OFFSET',
    );
  });
});

describe('limit ≤ 0 (Endpoints.asList: take(min(limit, max + 1)); A14)', () => {
  test.each([0, -2])('limit %i answers 200 [] on /v2/updates, /flats and /trees', async (limit) => {
    const end = sb.state.log.end;
    for (const path of [UPDATES, FLATS]) {
      const res = await call(
        sb.url,
        'POST',
        `${path}?limit=${limit}`,
        { beginExclusive: 0, endInclusive: end, updateFormat: transactionsOf(alice.partyId) },
        admin,
      );
      expect([res.status, res.json]).toEqual([200, []]);
    }
    const trees = await call(
      sb.url,
      'POST',
      `${TREES}?limit=${limit}`,
      { beginExclusive: 0, filter: { filtersByParty: { [alice.partyId]: {} } } },
      admin,
    );
    expect([trees.status, trees.json]).toEqual([200, []]);
  });
});

describe('the legacy filter (INTERFACE.md §4.2 rules over JsUpdateServiceConverters.toUpdateFormat; A11)', () => {
  test('yields the topology event of a party allocation, as INTERFACE.md says (the participant code does not)', async () => {
    const res = await call(
      sb.url,
      'POST',
      FLATS,
      {
        beginExclusive: 0,
        endInclusive: sb.state.log.end,
        filter: { filtersByParty: { [alice.partyId]: {} } },
      },
      admin,
    );
    expect(kinds(res.json)).toContain('TopologyTransaction');
  });
});

describe('pruned point lookups (UpdatePointwiseReader.lookupUpdateBy: no pruning check; A19)', () => {
  test('update-by-offset, transaction-by-offset, update-by-id at or below the pruning offset are 404 UPDATE_NOT_FOUND', async () => {
    const other = await sandboxWithAdmin();
    try {
      const p = await onboard(other.sb, other.admin);
      const tx = await run(other.sb, p, [tapCommand(other.sb, p.partyId, '1.0000000000')]);
      await run(other.sb, p, [tapCommand(other.sb, p.partyId, '1.0000000000')]);
      await call(other.sb.url, 'POST', '/admin/prune', { offset: tx.offset }, other.admin);
      const lookups = [
        [
          '/v2/updates/update-by-offset',
          { offset: tx.offset, updateFormat: transactionsOf(p.partyId) },
          'OFFSET',
        ],
        ['/v2/updates/update-by-offset', { offset: 1, updateFormat: transactionsOf(p.partyId) }, 'OFFSET'],
        [
          '/v2/updates/transaction-by-offset',
          { offset: tx.offset, requestingParties: [p.partyId] },
          'OFFSET',
        ],
        [
          '/v2/updates/update-by-id',
          { updateId: tx.updateId, updateFormat: transactionsOf(p.partyId) },
          'UPDATE_ID',
        ],
      ] as const;
      for (const [path, body, resource] of lookups) {
        const e = await expectLedgerError(
          other.sb.url,
          { specPath: path, method: 'POST', path, body, token: p.token },
          404,
          'UPDATE_NOT_FOUND',
        );
        expect(e.errorCategory).toBe(11);
        expect(e.resources[0][0]).toBe(resource);
      }
      const tree = await call(
        other.sb.url,
        'GET',
        `/v2/updates/transaction-tree-by-offset/${tx.offset}?parties=${encodeURIComponent(p.partyId)}`,
        undefined,
        p.token,
      );
      expect([tree.status, tree.json.code]).toEqual([404, 'UPDATE_NOT_FOUND']);
    } finally {
      await other.sb.close();
    }
  });
});

describe("the JSON server's request timeout (HttpService: withRequestTimeout, pekko-http TimeoutAccessImpl; A16)", () => {
  const TEXT =
    'The server was not able to produce a timely response to your request.\r\nPlease try again in a short while!';

  test('a list read past the timeout is 503 text/plain; an execute past it still commits', async () => {
    const other = await sandboxWithAdmin({ options: { requestTimeoutMs: 400 } });
    try {
      const p = await onboard(other.sb, other.admin);
      const started = Date.now();
      const read = await call(
        other.sb.url,
        'POST',
        `${FLATS}?stream_idle_timeout_ms=5000`,
        { beginExclusive: other.sb.state.log.end, updateFormat: transactionsOf(p.partyId) },
        p.token,
      );
      expect([read.status, read.contentType, read.text]).toEqual([503, 'text/plain; charset=UTF-8', TEXT]);
      expect(Date.now() - started).toBeLessThan(3000);
      // The command keeps running: held by a pause past the timeout, it commits once released.
      const prep = await call(
        other.sb.url,
        'POST',
        '/v2/interactive-submission/prepare',
        prepareBody(p, [tapCommand(other.sb, p.partyId, '1.0000000000')]),
        p.token,
      );
      const before = other.sb.state.log.end;
      await call(other.sb.url, 'POST', '/admin/pause', {}, other.admin);
      const exec = call(
        other.sb.url,
        'POST',
        '/v2/interactive-submission/executeAndWaitForTransaction',
        executeBody(p, prep.json),
        p.token,
      );
      await sleep(600);
      await call(other.sb.url, 'POST', '/admin/resume', {}, other.admin);
      const answer = await exec;
      expect([answer.status, answer.text]).toEqual([503, TEXT]);
      await sleep(100);
      expect(other.sb.state.log.end).toBeGreaterThan(before);
      // Quick requests are untouched.
      expect((await call(other.sb.url, 'GET', '/v2/state/ledger-end', undefined, p.token)).status).toBe(200);
    } finally {
      await other.sb.close();
    }
  });

  test('the default is the participant’s 20 s', async () => {
    const { DEFAULT_OPTIONS } = await import('../src/routes/http.ts');
    expect(DEFAULT_OPTIONS.requestTimeoutMs).toBe(20_000);
    expect(DEFAULT_OPTIONS.checkpointIntervalMs).toBe(15_000);
  });
});
