// GET /wallet/v1/parties/{party}/holdings and /transfer-instructions over real HTTP and Redis, from an index fed
// in the participant's shapes: balances per instrument summed exactly, locks until they expire, pending
// instructions both ways, party scope, bad input as 4xx JSON.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHarness } from '../../support/api-harness.ts';
import { consumed, holdingCreated, instructionCreated, tokenTx } from '../../support/token-events.ts';

type H = Awaited<ReturnType<typeof apiHarness>>;
let h: H;
const A = 'alice::1220aa';
const B = 'bob::1220bb';
const AMULET = { admin: 'dso::1220dd', id: 'Amulet' };
const USD = { admin: 'issuer::1220ee', id: 'USDx' };
const lock = (expiresAt: string | null) => ({
  holders: [AMULET.admin],
  expiresAt,
  expiresAfter: null,
  context: 'x',
});

interface Balance {
  instrument: { admin: string; id: string };
  total: string;
  locked: string;
  unlocked: string;
  holdings: { contractId: string; locked: boolean }[];
}

beforeAll(async () => {
  h = await apiHarness();
  await h.wallet.history.ingest({
    transactions: [
      tokenTx(
        1,
        [A],
        [
          holdingCreated('a1', A, AMULET, '0.1'),
          holdingCreated('a2', A, AMULET, '0.2'),
          holdingCreated('a3', A, AMULET, '1000000.0000000000', lock('2099-01-01T00:00:00Z')),
          holdingCreated('a4', A, AMULET, '7', lock('2020-01-01T00:00:00Z')), // expired: unlocked
          holdingCreated('u1', A, USD, '1000000'),
          holdingCreated('gone', A, USD, '3'),
        ],
      ),
      tokenTx(
        2,
        [A, B],
        [
          consumed('gone', A),
          instructionCreated('in1', { sender: B, receiver: A, amount: '5.0', instrument: USD, memo: 'rent' }),
          instructionCreated(
            'out1',
            { sender: A, receiver: B, amount: '2.0', instrument: AMULET },
            '2020-01-01T00:00:00Z',
          ),
        ],
      ),
    ],
    checkpoint: 2,
  });
});
afterAll(() => h.close());

const url = (party: string, what: string, q = '') =>
  `/wallet/v1/parties/${encodeURIComponent(party)}/${what}${q}`;

describe('GET /wallet/v1/parties/{party}/holdings', () => {
  it('answers balances per instrument, summed exactly; expired locks count as unlocked', async () => {
    const r = await h.call('GET', url(A, 'holdings'), { token: await h.token('read', A) });
    expect(r.status).toBe(200);
    const body = r.json as unknown as {
      instruments: Balance[];
      items: { contractId: string; owner: string }[];
    };
    expect(
      body.instruments.map(({ holdings, ...b }) => ({ ...b, ids: holdings.map((x) => x.contractId) })),
    ).toEqual([
      {
        instrument: AMULET,
        total: '1000007.3',
        locked: '1000000',
        unlocked: '7.3',
        ids: ['a1', 'a2', 'a3', 'a4'],
      },
      { instrument: USD, total: '1000000', locked: '0', unlocked: '1000000', ids: ['u1'] },
    ]);
    expect(body.instruments[0]?.holdings.map((x) => x.locked)).toEqual([false, false, true, false]);
    // The flat list the route answered before, kept for its clients.
    expect(body.items.map((i) => [i.contractId, i.owner])).toEqual([
      ['a1', A],
      ['a2', A],
      ['a3', A],
      ['a4', A],
      ['u1', A],
    ]);
    const none = await h.call('GET', url(B, 'holdings'), { token: await h.token('read') });
    expect(none.json).toEqual({ instruments: [], items: [] });
  });
});

describe('GET /wallet/v1/parties/{party}/transfer-instructions', () => {
  it('lists pending instructions incoming and outgoing, with memo and expiry', async () => {
    const t = await h.token('read', A);
    const all = await h.call('GET', url(A, 'transfer-instructions'), { token: t });
    expect(all.status).toBe(200);
    const items = (all.json as unknown as { items: Record<string, unknown>[] }).items;
    expect(
      items.map((i) => [i.contractId, i.direction, i.sender, i.receiver, i.amount, i.memo, i.expired]),
    ).toEqual([
      ['in1', 'incoming', B, A, '5.0', 'rent', false],
      ['out1', 'outgoing', A, B, '2.0', null, true],
    ]);
    expect(items[0]).toMatchObject({ instrument: USD, executeBefore: '2099-01-01T00:00:00Z' });
    const incoming = await h.call('GET', url(A, 'transfer-instructions', '?direction=incoming'), {
      token: t,
    });
    expect(
      (incoming.json as unknown as { items: { contractId: string }[] }).items.map((i) => i.contractId),
    ).toEqual(['in1']);
    const bobs = await h.call('GET', url(B, 'transfer-instructions', '?direction=incoming'), {
      token: await h.token('read', B),
    });
    expect(
      (bobs.json as unknown as { items: { contractId: string }[] }).items.map((i) => i.contractId),
    ).toEqual(['out1']);
  });
});

describe('party scope and bad input', () => {
  for (const what of ['holdings', 'transfer-instructions']) {
    it(`${what}: a party token sees only its party; bad input is a 4xx JSON error`, async () => {
      const other = await h.call('GET', url(A, what), { token: await h.token('read', B) });
      expect({ status: other.status, code: other.json.error?.code }).toEqual({
        status: 404,
        code: 'NOT_FOUND',
      });
      expect((await h.call('GET', url(A, what))).status).toBe(401);
      const long = await h.call('GET', url('x'.repeat(300), what), { token: await h.token('read') });
      expect({ status: long.status, code: long.json.error?.code }).toEqual({
        status: 413,
        code: 'TOO_LARGE',
      });
      const t = await h.token('read');
      await fc.assert(
        fc.asyncProperty(fc.string({ maxLength: 40 }), fc.string({ maxLength: 20 }), async (party, q) => {
          const r = await h.call('GET', url(party || 'x', what, `?direction=${encodeURIComponent(q)}`), {
            token: t,
          });
          expect(r.status).toBeLessThan(500);
          expect(r.json).toBeTypeOf('object');
        }),
        { numRuns: 30 },
      );
    });
  }

  it('an unknown direction is a 400', async () => {
    const r = await h.call('GET', url(A, 'transfer-instructions', '?direction=sideways'), {
      token: await h.token('read', A),
    });
    expect({ status: r.status, code: r.json.error?.code }).toEqual({ status: 400, code: 'INVALID_REQUEST' });
  });
});
