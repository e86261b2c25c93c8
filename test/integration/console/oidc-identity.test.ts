// One person, one approver (issue 29 item 2, review F3): alice holds an API token (`sub: alice`) and signs in to the
// console through OIDC (`sub: alice` at a real OpenID provider, started here). She may not approve her own
// submission in the console, nor supply two of a quorum's approvals; a group names her once for both.
import type { Server } from 'node:http';
import type { Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { issueToken, type Role } from '../../../src/auth/index.ts';
import { startConsoleWallet } from '../../support/console.ts';
import { CLIENT_ID, CLIENT_SECRET, startIdp } from '../../support/oidc-idp.ts';
import { freePort } from '../../support/redis-global-setup.ts';
import { noteCommand, prepareOn, SECRET, startLedger, walletConfig } from '../../support/wallet.ts';

const ACCOUNTS: Record<string, Record<string, unknown>> = { alice: { quill_role: 'approve' } };

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let idp: Server;
let party = '';

beforeAll(async () => {
  const idpPort = await freePort();
  const walletPort = await freePort();
  const consoleUrl = `http://127.0.0.1:${walletPort}`;
  const started = startIdp(idpPort, consoleUrl, ACCOUNTS);
  const issuer = started.issuer;
  idp = started.server;
  sandbox = await startLedger();
  w = await startConsoleWallet(
    sandbox,
    walletConfig(inject('redisUrl'), {
      PORT: String(walletPort),
      CONSOLE_PUBLIC_URL: consoleUrl,
      CONSOLE_OIDC_ISSUER: issuer,
      CONSOLE_OIDC_CLIENT_ID: CLIENT_ID,
      CONSOLE_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      // Its operators carry no party claim: every party, which this deployment allows.
      CONSOLE_OIDC_ALLOW_UNSCOPED: 'true',
    }),
  );
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  party = (
    await w.call('POST', '/wallet/v1/parties', { keyFingerprint: key.json.fingerprint, partyHint: 'alice' })
  ).json.partyId as string;
}, 60_000);

afterAll(async () => {
  await w?.wallet.close();
  await sandbox?.close();
  await new Promise((r) => idp?.close(r));
});

const tok = (role: Role, subject: string) => issueToken({ secret: SECRET, role, ttlSeconds: 600, subject });

async function usePolicy(doc: Record<string, unknown>): Promise<void> {
  expect((await w.call('PUT', '/wallet/v1/policy', doc)).status).toBe(200);
}

/** A submission by `subject` that the policy holds for approval. */
async function held(subject: string): Promise<{ id: string; hash: string }> {
  const res = await w.call(
    'POST',
    '/wallet/v1/submissions',
    await prepareOn(w.client, party, noteCommand(party)),
    await tok('submit', subject),
  );
  expect(res.json.status).toBe('awaiting_approval');
  return { id: res.json.id as string, hash: res.json.preparedTransactionHash as string };
}

const approveByApi = async (subject: string, s: { id: string; hash: string }) =>
  w.call(
    'POST',
    `/wallet/v1/submissions/${s.id}/approvals`,
    { decision: 'approve', hash: s.hash },
    await tok('approve', subject),
  );

/**
 * Signs in to the console through the provider without a browser: a cookie jar per host, the provider's login and
 * consent forms posted as a browser would, up to the console's callback, which sets the session cookie.
 */
async function oidcSession(account: string): Promise<{ cookie: string; csrf: string }> {
  const jars = new Map<string, Map<string, string>>();
  const jar = (u: URL) => jars.get(u.host) ?? jars.set(u.host, new Map()).get(u.host)!;
  /** Follows redirects, keeping cookies; answers the last response and where it came from. */
  async function go(start: URL, init: RequestInit = {}): Promise<{ res: Response; at: URL }> {
    let at = start;
    let req = init;
    for (let hop = 0; hop < 15; hop++) {
      const cookies = [...jar(at)].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await fetch(at, {
        ...req,
        redirect: 'manual',
        headers: { ...(req.headers as Record<string, string>), ...(cookies ? { cookie: cookies } : {}) },
      });
      for (const c of res.headers.getSetCookie()) {
        const [pair = ''] = c.split(';');
        const eq = pair.indexOf('=');
        jar(at).set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      const location = res.headers.get('location');
      if (!location) return { res, at };
      at = new URL(location, at);
      req = {};
    }
    throw new Error('too many redirects');
  }
  /** Posts the page's one form (the provider's login, then its consent). */
  async function post(page: { res: Response; at: URL }, fields: Record<string, string>) {
    const html = await page.res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`no form on ${page.at.href}: ${html.slice(0, 200)}`);
    return go(new URL(action.replace(/&amp;/g, '&'), page.at), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
  }
  const consoleUrl = new URL(w.url);
  const login = await go(new URL('/console/oidc/start?next=/console', consoleUrl));
  const consent = await post(login, { prompt: 'login', login: account, password: 'any' });
  const back = await post(consent, { prompt: 'consent' });
  // The callback answers a "Signed in" page (its Strict session cookie is sent from the console's own link).
  expect(await back.res.text()).toContain('Signed in');
  const landed = await go(new URL('/console', consoleUrl));
  const cookie = [...jar(consoleUrl)]
    .filter(([k]) => k === 'quill_console')
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await landed.res.text())?.[1] ?? '';
  expect(csrf, 'signed in to the console').not.toBe('');
  return { cookie, csrf };
}

const approveInConsole = (session: { cookie: string; csrf: string }, s: { id: string; hash: string }) =>
  fetch(`${w.url}/console/approvals/${s.id}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: session.csrf, hash: s.hash, decision: 'approve' }),
  });

const record = async (id: string) => (await w.call('GET', `/wallet/v1/submissions/${id}`)).json;

describe('one person is one approver across API tokens and console OIDC', () => {
  it('alice cannot approve her own submission in the console', async () => {
    await usePolicy({ default: 'allow', rules: [{ name: 'all', match: {}, action: 'approve', quorum: 1 }] });
    const mine = await held('alice');
    expect((await approveByApi('alice', mine)).json.error).toMatchObject({ code: 'SELF_APPROVAL' });

    const res = await approveInConsole(await oidcSession('alice'), mine);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('cannot decide its own submission');
    const rec = await record(mine.id);
    expect(rec.status).toBe('awaiting_approval');
    expect(rec.approvals).toEqual([]);
  });

  it('alice through the API and through the console is one approval of a quorum', async () => {
    await usePolicy({ default: 'allow', rules: [{ name: 'two', match: {}, action: 'approve', quorum: 2 }] });
    const s = await held('sam');
    expect((await approveByApi('alice', s)).json.status).toBe('awaiting_approval');
    const res = await approveInConsole(await oidcSession('alice'), s);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('already decided');
    const rec = await record(s.id);
    expect(rec.status).toBe('awaiting_approval');
    expect((rec.approvals as unknown[]).length).toBe(1);
    // A second person completes the quorum.
    expect((await approveByApi('bob', s)).json.status).toBe('queued');
  });

  it('a group names people by subject: alice is a member in the console too, once', async () => {
    await usePolicy({
      default: 'allow',
      groups: { treasury: ['alice', 'bob'] },
      rules: [{ name: 'grouped', match: {}, action: 'approve', quorum: 2, group: 'treasury' }],
    });
    const s = await held('sam');
    expect((await approveInConsole(await oidcSession('alice'), s)).status).toBe(303);
    expect((await record(s.id)).approvals).toMatchObject([{ subject: 'oidc:alice', decision: 'approve' }]);
    expect((await approveByApi('alice', s)).json.error).toMatchObject({ code: 'ALREADY_DECIDED' });
    expect((await approveByApi('mallory', s)).json.error).toMatchObject({ code: 'NOT_AN_APPROVER' });
    expect((await approveByApi('bob', s)).json.status).toBe('queued');
  });
});
