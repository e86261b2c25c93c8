// The console's security rules over real HTTP (issue 17): a read operator cannot act, a party-scoped operator sees
// only its party, CSRF tokens and cross-site POSTs, the CSP and other headers on every page, cookie flags (Secure
// and __Host- behind https), sign-out, idle and absolute session timeouts, sign-in links that are not API tokens
// (nor API tokens links), and garbage in every form and filter answered without a 500. The pages come from the
// console's page table (src/console/pages/index.ts): each page's role, party scope, title and navigation link
// are checked against what it answers, so a page added to the table is covered here without editing this file.
import { randomBytes } from 'node:crypto';
import type { Sandbox } from '@quill/sandbox';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { allows, issueToken, ROLES } from '../../../src/auth/index.ts';
import { mintLink, SessionStore } from '../../../src/console/index.tsx';
import { type ConsolePage, opens, PAGES } from '../../../src/console/pages/index.ts';
import { httpSession, link, startConsoleWallet } from '../../support/console.ts';
import { noteCommand, prepareOn, SECRET, startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let alice = '';
let bob = '';
let aliceSub = '';
let bobSub = '';
let fp = '';
let aliceKey = '';

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startConsoleWallet(sandbox, walletConfig(inject('redisUrl')));
  const onboard = async (hint: string) => {
    const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
    fp = key.json.fingerprint as string;
    return (await w.call('POST', '/wallet/v1/parties', { keyFingerprint: fp, partyHint: hint })).json
      .partyId as string;
  };
  alice = await onboard('alice');
  aliceKey = fp;
  bob = await onboard('bob');
  const submit = async (party: string) =>
    (await w.call('POST', '/wallet/v1/submissions', await prepareOn(w.client, party, noteCommand(party))))
      .json.id as string;
  aliceSub = await submit(alice);
  bobSub = await submit(bob);
}, 60_000);

afterAll(async () => {
  await w?.wallet.close();
  await sandbox?.close();
});

const get = (path: string, cookie = '') =>
  fetch(`${w.url}${path}`, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
const post = (
  path: string,
  cookie: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) =>
  fetch(`${w.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
const postForms = (html: string) =>
  [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]);

/** A page's URL, its parameters filled with alice's objects (a new kind of parameter needs an example here). */
function url(page: ConsolePage): string {
  const examples: Record<string, string> = { id: aliceSub, fp: aliceKey, party: alice };
  return `/console${page.path}`.replace(/:(\w+)/g, (_, name: string) => {
    const value = examples[name];
    if (value === undefined) throw new Error(`no example for :${name} (${page.path}): add one to url()`);
    return encodeURIComponent(value);
  });
}
const shown = PAGES.filter((p) => p.get);

/** The page an action shows again: the nearest page at or above its path (/keys/:fp/disable → /keys/:fp). */
function pageOf(action: ConsolePage): ConsolePage {
  for (let path = action.path; ; path = path.slice(0, path.lastIndexOf('/'))) {
    const page = shown.find((p) => p.path === path);
    if (page) return page;
    if (path === '') throw new Error(`no page above ${action.path}`);
  }
}

describe('console security', () => {
  it('a read operator sees pages without forms, and its POSTs are refused', async () => {
    const s = await httpSession(w.url, await link(w.url, 'read'));
    const reader = { subject: 'x', role: 'read' as const, party: undefined };
    for (const page of shown.filter((p) => opens(reader, p))) {
      const res = await get(url(page), s.cookie);
      expect(res.status, page.path).toBe(200);
      expect(
        postForms(await res.text()).filter((f) => f !== '/console/signout'),
        page.path,
      ).toEqual([]);
    }
    // Every form action above the read role is refused, whatever the form holds. An action shows its page again:
    // with the refusal beside the form (400) where the operator may open that page, else the page refuses (403).
    for (const page of PAGES.filter((p) => p.post && !allows('read', p.minRole))) {
      const res = await post(url(page), s.cookie, { _csrf: s.csrf });
      expect(res.status, page.path).toBe(opens(reader, pageOf(page)) ? 400 : 403);
    }
    const before = ((await w.call('GET', '/wallet/v1/keys')).json.items as unknown[]).length;
    const tries: [string, Record<string, string>, number][] = [
      ['/console/keys', { algorithm: 'ed25519' }, 403],
      ['/console/parties', { keyFingerprint: fp, partyHint: 'mallory' }, 403],
      [`/console/keys/${fp}/disable`, { confirm: fp.slice(-8) }, 403],
      [`/console/approvals/${aliceSub}`, { decision: 'approve', hash: 'x' }, 400], // beside the approvals form
      ['/console/ledger/user', { primaryParty: alice, resourceVersion: '0', annotations: '' }, 403],
    ];
    for (const [path, form, status] of tries) {
      const res = await post(path, s.cookie, { ...form, _csrf: s.csrf });
      expect(res.status, path).toBe(status);
    }
    expect(((await w.call('GET', '/wallet/v1/keys')).json.items as unknown[]).length).toBe(before);
    expect((await w.call('GET', `/wallet/v1/keys/${fp}`)).json.status).toBe('active');
  });

  it("a party-scoped operator cannot open another party's submission, party or list by URL", async () => {
    const s = await httpSession(w.url, await link(w.url, 'admin', alice));
    expect((await get(`/console/submissions/${aliceSub}`, s.cookie)).status).toBe(200);
    const other = await get(`/console/submissions/${bobSub}`, s.cookie);
    expect(other.status).toBe(404);
    expect(await other.text()).not.toContain(bob);
    expect((await get(`/console/submissions/${bobSub}/status`, s.cookie)).status).toBe(404);
    expect((await get(`/console/parties/${encodeURIComponent(bob)}`, s.cookie)).status).toBe(404);
    const list = await get(`/console/submissions?party=${encodeURIComponent(bob)}`, s.cookie);
    expect(list.status).toBe(403); // the API: PARTY_NOT_ALLOWED
    expect(await list.text()).not.toContain(bobSub);
    const rows = await (await get('/console/submissions/rows', s.cookie)).text();
    expect(rows).toContain(aliceSub);
    expect(rows).not.toContain(bobSub);
  });

  it('opens each page to the roles its table entry names, and the API refuses the others', async () => {
    for (const role of ROLES) {
      const s = await httpSession(w.url, await link(w.url, role));
      const who = { subject: 'x', role, party: undefined };
      for (const page of shown) {
        const res = await get(url(page), s.cookie);
        expect(res.status, `${role} ${page.path}`).toBe(opens(who, page) ? 200 : 403);
      }
    }
    // A party-scoped admin: every page of its own party, none of those that need an unscoped operator.
    const s = await httpSession(w.url, await link(w.url, 'admin', alice));
    for (const page of shown) {
      const res = await get(url(page), s.cookie);
      expect(res.status, `scoped admin ${page.path}`).toBe(page.unscoped ? 403 : 200);
    }
  });

  it('shows each operator the links to the pages it can open, and each page its title', async () => {
    const TOP = /<nav aria-label="Sections"[^>]*>(.*?)<\/nav>/s;
    const SECTION = /<nav aria-label="[^"]+" class="subnav">(.*?)<\/nav>/s;
    const links = (html: string, nav: RegExp) =>
      [...(nav.exec(html)?.[1] ?? '').matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]);
    const sections = [...new Set(PAGES.flatMap((p) => (p.nav?.section ? [p.nav.section] : [])))];
    const operators = [
      ...ROLES.map((role) => ({ subject: 'x', role, party: undefined as string | undefined })),
      { subject: 'x', role: 'admin' as const, party: alice },
    ];
    for (const who of operators) {
      const s = await httpSession(w.url, await link(w.url, who.role, who.party));
      const what = `${who.role}${who.party ? ' scoped' : ''}`;
      const expected = (section?: string) =>
        PAGES.filter((p) => p.nav && p.nav.section === section && opens(who, p)).map(
          (p) => `/console${p.path}`,
        );
      expect(links(await (await get('/console', s.cookie)).text(), TOP), what).toEqual(expected());
      for (const section of sections) {
        const html = await (await get(`/console${section}`, s.cookie)).text();
        expect(links(html, SECTION), `${what} ${section}`).toEqual(expected(section));
      }
    }
    const s = await httpSession(w.url, await link(w.url, 'admin'));
    for (const page of shown.filter((p) => !p.fragment)) {
      const html = await (await get(url(page), s.cookie)).text();
      expect(/<title>([^<]*)<\/title>/.exec(html)?.[1], page.path).toMatch(/ · Quill console$/);
      expect(/<title>([^<]*)<\/title>/.exec(html)?.[1]?.startsWith(`${page.title} `), page.path).toBe(true);
    }
  });

  it('refuses a state change without the CSRF token, with a wrong one, or from another site', async () => {
    const s = await httpSession(w.url, await link(w.url, 'admin'));
    const keys = async () => ((await w.call('GET', '/wallet/v1/keys')).json.items as unknown[]).length;
    const before = await keys();
    expect((await post('/console/keys', s.cookie, { algorithm: 'ed25519' })).status).toBe(403);
    expect(
      (await post('/console/keys', s.cookie, { algorithm: 'ed25519', _csrf: 'x'.repeat(32) })).status,
    ).toBe(403);
    const crossSite = await post(
      '/console/keys',
      s.cookie,
      { algorithm: 'ed25519', _csrf: s.csrf },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    const otherOrigin = await post(
      '/console/keys',
      s.cookie,
      { algorithm: 'ed25519', _csrf: s.csrf },
      { origin: 'https://evil.example' },
    );
    expect(otherOrigin.status).toBe(403);
    expect(await keys()).toBe(before);
    // The same request with the token works (so the refusals above were the token's doing).
    expect((await post('/console/keys', s.cookie, { algorithm: 'ed25519', _csrf: s.csrf })).status).toBe(303);
    expect(await keys()).toBe(before + 1);
  });

  it('sends the strict CSP and the other headers on every page, signed in or not', async () => {
    const s = await httpSession(w.url, await link(w.url, 'admin'));
    const pages: (readonly [string, string])[] = [
      ['/console/signin', ''],
      ['/console', ''],
      ...shown.map((p) => [url(p), s.cookie] as const),
      ['/console/audit?format=csv', s.cookie],
      ['/console/no-such-page', s.cookie],
      ['/console/assets/console.js', ''],
    ];
    for (const [page, cookie] of pages) {
      const res = await get(page, cookie);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, page).toContain("default-src 'none'");
      expect(csp, page).toContain("script-src 'self'");
      expect(csp, page).not.toContain('unsafe-inline');
      expect(csp, page).toContain("frame-ancestors 'none'");
      expect(res.headers.get('referrer-policy'), page).toBe('no-referrer');
      expect(res.headers.get('x-content-type-options'), page).toBe('nosniff');
      if (res.headers.get('content-type')?.includes('text/html')) {
        const html = await res.text();
        expect(html, page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
        expect(html, page).not.toMatch(/ style="/); // no inline style
      }
    }
  });

  it('sets the session cookie HttpOnly and SameSite=Strict; Secure with the __Host- prefix behind https', async () => {
    const first = await fetch(await link(w.url, 'read'));
    const pre = /name="_pre" value="([^"]+)"/.exec(await first.text())?.[1] ?? '';
    const preCookie = first.headers.get('set-cookie') ?? '';
    expect(preCookie).toMatch(/HttpOnly/i);
    expect(preCookie).toMatch(/SameSite=Strict/i);
    const t = new URL(await link(w.url, 'read')).searchParams.get('t') ?? '';
    const res = await fetch(`${w.url}/console/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: preCookie.split(';')[0] ?? '', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ t, _pre: pre }),
    });
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^quill_console=[\w-]{43};/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/i);

    // Behind TLS (CONSOLE_PUBLIC_URL https): Secure, and the __Host- prefix pins it to this host.
    const tls = await startConsoleWallet(
      sandbox,
      walletConfig(inject('redisUrl'), { CONSOLE_PUBLIC_URL: 'https://console.example' }),
    );
    try {
      const page = await fetch(`${tls.url}/console/signin?t=x`);
      expect(page.headers.get('set-cookie') ?? '').toMatch(/^__Host-quill_console_pre=.*Secure/i);
      const session = await httpSessionRaw(tls.url);
      expect(session).toMatch(/^__Host-quill_console=[\w-]{43};/);
      expect(session).toMatch(/Secure/i);
      expect(session).toMatch(/HttpOnly/i);
      expect(session).toMatch(/SameSite=Strict/i);
      expect(session).toMatch(/Path=\//);
    } finally {
      await tls.wallet.close();
    }
  });

  it('sign-out ends the session on the server', async () => {
    const s = await httpSession(w.url, await link(w.url, 'admin'));
    expect((await get('/console', s.cookie)).status).toBe(200);
    const out = await post('/console/signout', s.cookie, { _csrf: s.csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/console/signin');
    // The old cookie, replayed: no session behind it any more.
    const after = await get('/console', s.cookie);
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toContain('/console/signin');
  });

  it('a sign-in link is not an API token, and an API token is not a sign-in link', async () => {
    const t = await mintLink(SECRET, { role: 'admin', ttlSeconds: 60 });
    const asBearer = await fetch(`${w.url}/wallet/v1/keys`, { headers: { authorization: `Bearer ${t}` } });
    expect(asBearer.status).toBe(401);
    const api = await issueToken({ secret: SECRET, role: 'admin', ttlSeconds: 60, subject: 'x' });
    const first = await fetch(`${w.url}/console/signin?t=${api}`);
    const pre = /name="_pre" value="([^"]+)"/.exec(await first.text())?.[1] ?? '';
    const res = await fetch(`${w.url}/console/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ t: api, _pre: pre }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('invalid');
    expect(res.headers.get('set-cookie') ?? '').not.toMatch(/quill_console=/);
  });

  it('answers garbage in every form and filter with a 4xx or a page, never a 500 or a stack', async () => {
    const s = await httpSession(w.url, await link(w.url, 'admin'));
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constant(''),
    );
    const check = async (res: Response, what: string) => {
      expect(res.status, what).toBeLessThan(500);
      const body = await res.text();
      expect(body, what).not.toMatch(/\n\s+at .+:\d+:\d+/);
    };
    await fc.assert(
      fc.asyncProperty(text, text, text, async (a, b, c) => {
        const forms: [string, Record<string, string>][] = [
          ['/console/keys', { algorithm: a, label: b, backend: c }],
          ['/console/parties', { keyFingerprint: a, partyHint: b, synchronizerId: c }],
          [`/console/keys/${fp}/disable`, { confirm: a }],
          [`/console/approvals/${encodeURIComponent(a || 'x')}`, { decision: b, hash: c, reason: a }],
          ['/console/ledger/user', { primaryParty: a, resourceVersion: b, annotations: c }],
        ];
        for (const [path, form] of forms)
          await check(await post(path, s.cookie, { ...form, _csrf: s.csrf }), path);
        const q = (o: Record<string, string>) => new URLSearchParams(o).toString();
        const reads = [
          `/console/submissions?${q({ party: a, status: b, since: c, until: a, cursor: b })}`,
          `/console/submissions/rows?${q({ status: a, since: b })}`,
          `/console/submissions/${encodeURIComponent(a || 'x')}`,
          `/console/keys/${encodeURIComponent(a || 'x')}`,
          `/console/parties/${encodeURIComponent(a || 'x')}`,
          `/console/ledger/packages?${q({ packageIds: a, pageSize: b, pageToken: c })}`,
          `/console/ledger/updates?${q({ party: a, beginExclusive: b, endInclusive: c, order: a })}`,
          `/console/ledger/update?${q({ party: a, updateId: b, offset: c, kind: a })}`,
          `/console/ledger/activities?${q({ party: a, begin_after_id: b, page_size: c })}`,
          `/console/audit?${q({ kind: a, actor: b, party: c, key: a })}`,
          `/console/signin?${q({ t: a, next: b })}`,
        ];
        for (const path of reads) await check(await get(path, s.cookie), path);
      }),
      { numRuns: 60 },
    );
  }, 240_000);
});

/** Signs in on a wallet whose public URL is https (its cookies are Secure, so they are passed back by hand). */
async function httpSessionRaw(url: string): Promise<string> {
  const t = await mintLink(SECRET, { role: 'read', ttlSeconds: 60 });
  const first = await fetch(`${url}/console/signin?t=${t}`);
  const pre = /name="_pre" value="([^"]+)"/.exec(await first.text())?.[1] ?? '';
  const res = await fetch(`${url}/console/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ t, _pre: pre }),
  });
  expect(res.status).toBe(303);
  return res.headers.get('set-cookie') ?? '';
}

describe('console sessions in Redis', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(inject('redisUrl'));
  });
  afterAll(() => redis.disconnect());
  const principal = { subject: 'op', role: 'read' as const, party: undefined };

  it('ends after the idle timeout, and each use restarts the idle clock', async () => {
    const store = new SessionStore(redis, `sess-${randomBytes(3).toString('hex')}:`, {
      idleMs: 400,
      absoluteMs: 60_000,
    });
    const id = await store.create(principal, 'link');
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 200));
      expect(await store.get(id)).toBeDefined(); // used within the idle window: kept alive
    }
    await new Promise((r) => setTimeout(r, 600));
    expect(await store.get(id)).toBeUndefined();
  });

  it('ends at the absolute timeout however busy it is, and keeps only a hash of the id in Redis', async () => {
    const prefix = `sess-${randomBytes(3).toString('hex')}:`;
    const store = new SessionStore(redis, prefix, { idleMs: 10_000, absoluteMs: 700 });
    const id = await store.create(principal, 'link');
    const keys = await redis.keys(`${prefix}*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(id);
    expect(await redis.get(keys[0] as string)).not.toContain(id);
    const until = Date.now() + 1000;
    let alive = true;
    while (Date.now() < until) {
      alive = (await store.get(id)) !== undefined;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(alive).toBe(false);
    expect(await store.get('not-a-session')).toBeUndefined();
  });
});
