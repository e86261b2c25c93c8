// Party history and ledger reads through the wallet: party scope, cursor paging, bad input (4xx, never 500).
import { randomBytes } from 'node:crypto';
import { LedgerClient } from '@quill/canton/ledger';
import { ScanClient } from '@quill/canton/scan';
import { bootstrapCoin, mint, type Sandbox, startSandbox } from '@quill/sandbox';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerReads } from '../../../src/api/ledger-reads.ts';
import { issueToken } from '../../../src/auth/index.ts';
import { loadConfig } from '../../../src/config/index.ts';
import type { IndexedTransaction } from '../../../src/history/index.ts';
import { startWallet } from '../../../src/server/wallet.ts';
import { Keyring, KeyStore, verifyingSigner } from '../../../src/signing/index.ts';
import { apiHarness, SECRET, unreachableLedger } from '../../support/api-harness.ts';
import { tempDir } from '../../support/tmp.ts';

type H = Awaited<ReturnType<typeof apiHarness>>;
let h: H;
const A = 'alice::1220aa';
const B = 'bob::1220bb';

function tx(offset: number, parties: string[]): IndexedTransaction {
  const updateId = `upd-${offset}`;
  return {
    updateId,
    offset,
    recordTime: '2026-01-01T00:00:00Z',
    parties,
    transaction: {
      updateId,
      offset,
      events: [],
      synchronizerId: 's',
      effectiveAt: '2026-01-01T00:00:00Z',
      recordTime: '2026-01-01T00:00:00Z',
    },
  } as unknown as IndexedTransaction;
}

beforeAll(async () => {
  h = await apiHarness();
  const items: IndexedTransaction[] = [];
  for (let o = 1; o <= 25; o++) items.push(tx(o, o % 5 === 0 ? [A, B] : [A]));
  items.push(tx(26, [B]));
  await h.wallet.history.ingest({ transactions: items, checkpoint: 26 });
});
afterAll(() => h.close());

describe('GET /wallet/v1/parties/{party}/transactions', () => {
  const url = (party: string, q = '') => `/wallet/v1/parties/${encodeURIComponent(party)}/transactions${q}`;

  it('pages forwards and backwards with offset cursors', async () => {
    const t = await h.token('read');
    const offsets: number[] = [];
    let q = '?limit=10';
    for (;;) {
      const r = await h.call('GET', url(A, q), { token: t });
      expect(r.status).toBe(200);
      const body = r.json as { items: { offset: number }[]; next?: string };
      offsets.push(...body.items.map((i) => i.offset));
      if (!body.next) break;
      q = `?limit=10&after=${body.next}`;
    }
    expect(offsets).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    const back = await h.call('GET', url(A, '?order=desc&limit=3&before=10'), { token: t });
    expect((back.json as { items: { offset: number }[] }).items.map((i) => i.offset)).toEqual([9, 8, 7]);
    expect((back.json as { next?: string }).next).toBe('7');
  });

  it('a party token sees only its party', async () => {
    const own = await h.call('GET', url(B), { token: await h.token('read', B) });
    expect(own.status).toBe(200);
    expect((own.json as { items: { offset: number }[] }).items.map((i) => i.offset)).toEqual([
      5, 10, 15, 20, 25, 26,
    ]);
    const other = await h.call('GET', url(A), { token: await h.token('admin', B) });
    expect(other.status).toBe(404);
    expect(other.json.error?.code).toBe('NOT_FOUND');
    expect((await h.call('GET', url(A))).status).toBe(401);
  });

  it('answers bad input with a 4xx JSON error, never a 500', async () => {
    const t = await h.token('read');
    for (const q of [
      '?limit=0',
      '?limit=501',
      '?limit=x',
      '?after=-1',
      '?before=1.5',
      '?order=up',
      '?after=1e400',
    ]) {
      const r = await h.call('GET', url(A, q), { token: t });
      expect({ status: r.status, code: r.json.error?.code }, q).toEqual({
        status: 400,
        code: 'INVALID_REQUEST',
      });
    }
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 40 }), fc.string({ maxLength: 20 }), async (party, after) => {
        const r = await h.call(
          'GET',
          `/wallet/v1/parties/${encodeURIComponent(party || 'x')}/transactions?after=${encodeURIComponent(after)}`,
          { token: t },
        );
        expect(r.status).toBeLessThan(500);
        expect(r.json).toBeTypeOf('object');
      }),
      { numRuns: 40 },
    );
  });
});

describe('GET /wallet/v1/ledger/transactions/{updateId} and /offsets/{offset}', () => {
  let sb: Sandbox;
  let w: Awaited<ReturnType<typeof startWallet>>;
  let alice: string;
  let bob: string;
  let updateId: string;
  let offset: number;
  const tok = (role: 'read' | 'admin', party?: string) =>
    issueToken({ secret: SECRET, role, ttlSeconds: 600, subject: 't', ...(party ? { party } : {}) });
  const get = async (path: string, token?: string) => {
    const r = await fetch(`${w.url}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    return { status: r.status, json: (await r.json()) as Record<string, never> };
  };
  /** The status and error code of an answer. */
  const refusal = (r: { status: number; json: { error?: { code?: string } } }) => ({
    status: r.status,
    code: r.json.error?.code,
  });

  beforeAll(async () => {
    sb = await startSandbox({ port: 0, scanPort: 0, host: '127.0.0.1', auth: 'none' });
    bootstrapCoin(sb.state);
    alice = sb.state.allocateLocalParty('alice').partyId;
    bob = sb.state.allocateLocalParty('bob').partyId;
    const u = mint(sb.state, alice, '5.0');
    updateId = u.updateId;
    offset = u.offset;
    const dir = tempDir('quill-reads-');
    const keys = new KeyStore({ dir, passphrase: 'p', scrypt: { N: 1024 } });
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: h.config.redisUrl,
      REDIS_PREFIX: `reads-${randomBytes(4).toString('hex')}`,
      AUTH_JWT_SECRET: SECRET,
    });
    w = await startWallet({
      config,
      role: 'api',
      ledger: unreachableLedger,
      auth: (await import('../../../src/auth/index.ts')).createVerifier(config.auth),
      keys: new Keyring([keys]),
      signer: verifyingSigner(keys),
      parties: { keyOf: async () => undefined },
      reads: ledgerReads(
        new LedgerClient({ baseUrl: sb.url, timeoutMs: 5000 }),
        new ScanClient({ baseUrl: sb.scanUrl, timeoutMs: 5000 }),
      ),
    });
  });
  afterAll(async () => {
    await w.close();
    await sb.close();
  });

  it('reads as the caller party; another party sees nothing', async () => {
    const own = await get(
      `/wallet/v1/ledger/transactions/${encodeURIComponent(updateId)}`,
      await tok('read', alice),
    );
    expect(own.status).toBe(200);
    expect((own.json.transaction as unknown as { offset: number }).offset).toBe(offset);
    const at = await get(`/wallet/v1/ledger/offsets/${offset}`, await tok('read', alice));
    expect(at.status).toBe(200);
    const notBob = await get(`/wallet/v1/ledger/offsets/${offset}`, await tok('read', bob));
    expect(notBob.status).toBe(404);
    const named = await get(
      `/wallet/v1/ledger/offsets/${offset}?party=${encodeURIComponent(alice)}`,
      await tok('read', bob),
    );
    expect(named.status).toBe(404);
    const admin = await get(
      `/wallet/v1/ledger/offsets/${offset}?party=${encodeURIComponent(alice)}`,
      await tok('admin'),
    );
    expect(admin.status).toBe(200);
  });

  it('bad input is a 4xx JSON error', async () => {
    const t = await tok('read', alice);
    for (const [p, status, code] of [
      ['/wallet/v1/ledger/offsets/0', 400, 'INVALID_REQUEST'], // the route's schema: offsets start at 1
      ['/wallet/v1/ledger/offsets/-3', 400, 'INVALID_REQUEST'],
      ['/wallet/v1/ledger/offsets/abc', 400, 'INVALID_REQUEST'],
      ['/wallet/v1/ledger/offsets/99999999', 404, 'NOT_FOUND'], // past the ledger's end
      ['/wallet/v1/ledger/transactions/nope', 400, 'INVALID_REQUEST'], // the ledger refuses the id's form
    ] as const) {
      const r = await get(p, t);
      expect(refusal(r), p).toEqual({ status, code });
    }
    expect((await get(`/wallet/v1/ledger/offsets/${offset}`, await tok('read'))).status).toBe(400); // no party
    expect((await get(`/wallet/v1/ledger/offsets/${offset}`)).status).toBe(401);
  });

  it('vetted packages (4.1): both filters and page tokens, through the ledger', async () => {
    const t = await tok('read', alice);
    const all = await get('/wallet/v1/ledger/vetted-packages', t);
    expect(all.status).toBe(200);
    const pkgs = (
      all.json.vettedPackages as unknown as { packages: { packageId: string; packageName?: string }[] }[]
    ).flatMap((v) => v.packages);
    expect(pkgs.length).toBeGreaterThan(0);
    const one = pkgs[0] as { packageId: string };
    const byId = await get(`/wallet/v1/ledger/vetted-packages?packageIds=${one.packageId}`, t);
    expect(
      (byId.json.vettedPackages as unknown as { packages: { packageId: string }[] }[])
        .flatMap((v) => v.packages)
        .every((p) => p.packageId === one.packageId),
    ).toBe(true);
    const none = await get('/wallet/v1/ledger/vetted-packages?packageNamePrefixes=no-such-prefix', t);
    expect(
      (none.json.vettedPackages as unknown as { packages: unknown[] }[] | undefined)?.flatMap(
        (v) => v.packages,
      ) ?? [],
    ).toEqual([]);
    // Page by page with the ledger's tokens: the same packages as one big page.
    const seen: string[] = [];
    let token: string | undefined;
    for (let i = 0; i < 50; i++) {
      const page = await get(
        `/wallet/v1/ledger/vetted-packages?pageSize=1${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`,
        t,
      );
      expect(page.status).toBe(200);
      for (const v of (page.json.vettedPackages ?? []) as unknown as { packages: { packageId: string }[] }[])
        seen.push(...v.packages.map((p) => p.packageId));
      token = (page.json.nextPageToken as unknown as string) || undefined;
      if (!token) break;
    }
    expect(seen.sort()).toEqual(pkgs.map((p) => p.packageId).sort());
    for (const bad of ['?pageSize=0', '?pageSize=abc', '?pageToken=%00garbage']) {
      const r = await get(`/wallet/v1/ledger/vetted-packages${bad}`, t);
      expect(refusal(r), bad).toEqual({
        status: 400,
        code: 'INVALID_REQUEST',
      });
    }
  });

  it("activities (4.8): only the party's, paged with begin_after_id; another party's are 404", async () => {
    mint(sb.state, bob, '1.0');
    mint(sb.state, alice, '2.0');
    const t = await tok('read', alice);
    const first = await get(`/wallet/v1/parties/${encodeURIComponent(alice)}/activities?page_size=1`, t);
    expect(first.status).toBe(200);
    const collected: { mint?: { coin_owner: string } }[] = [];
    let after = first.json.next_begin_after_id as unknown as string | null;
    collected.push(...(first.json.activities as unknown as typeof collected));
    for (let i = 0; after && i < 20; i++) {
      const page = await get(
        `/wallet/v1/parties/${encodeURIComponent(alice)}/activities?page_size=1&begin_after_id=${encodeURIComponent(after)}`,
        t,
      );
      expect(page.status).toBe(200);
      collected.push(...(page.json.activities as unknown as typeof collected));
      after = page.json.next_begin_after_id as unknown as string | null;
    }
    expect(after).toBeNull();
    expect(collected.length).toBe(2); // alice's two mints, not bob's
    expect(collected.every((a) => a.mint?.coin_owner === alice)).toBe(true);
    expect((await get(`/wallet/v1/parties/${encodeURIComponent(bob)}/activities`, t)).status).toBe(404);
    for (const bad of ['?page_size=0', '?page_size=5000', '?begin_after_id=']) {
      const r = await get(`/wallet/v1/parties/${encodeURIComponent(alice)}/activities${bad}`, t);
      expect(r.status, bad).toBe(400);
    }
  });
});
