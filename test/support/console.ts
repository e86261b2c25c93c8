// The console's test bench: a whole wallet (API + worker + watcher, real Redis) on the embedded sandbox over real
// HTTP, sign-in links, page screenshots, and the axe-core scan in the browser.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { LedgerClient } from '@quill/canton/ledger';
import { ScanClient } from '@quill/canton/scan';
import { SANDBOX_RECOGNIZERS, type Sandbox } from '@quill/sandbox';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { ledgerReads } from '../../src/api/ledger-reads.ts';
import { createVerifier, issueToken, type Role } from '../../src/auth/index.ts';
import type { Config } from '../../src/config/index.ts';
import { mintLink } from '../../src/console/index.tsx';
import { PartyRegistry } from '../../src/parties/index.ts';
import { partyServices } from '../../src/server/adapters.ts';
import { startWallet } from '../../src/server/wallet.ts';
import { Keyring, KeyStore, verifyingSigner } from '../../src/signing/index.ts';
import { ledgerPort } from '../../src/submissions/ledger.ts';
import { SCREENSHOTS } from './browser.ts';
import { tempDir } from './tmp.ts';
import { noteCommand, prepareOn, SECRET, withSandboxRegistries } from './wallet.ts';

export async function startConsoleWallet(sandbox: Sandbox, config: Config) {
  const dir = tempDir('quill-console-keys-');
  const client = new LedgerClient({ baseUrl: sandbox.url, timeoutMs: config.ledgerTimeoutMs });
  const keys = new Keyring([new KeyStore({ dir, passphrase: 'console passphrase', scrypt: { N: 1024 } })]);
  const signer = verifyingSigner(keys);
  const registry = new PartyRegistry({ dir });
  const parties = partyServices({ registry, ledger: client, signer, keys });
  const wallet = await startWallet({
    config: withSandboxRegistries(config, sandbox),
    role: 'all',
    ledger: ledgerPort(client),
    reads: ledgerReads(client, new ScanClient({ baseUrl: sandbox.scanUrl }), 'participant_admin'),
    watch: { ledger: client, parties: async () => (await registry.list()).map((r) => r.partyId) },
    auth: createVerifier(config.auth),
    keys,
    signer,
    parties,
    worker: { sweepEveryMs: 1000 },
    // The sandbox's registries valued as `quill serve --sandbox` values them.
    recognizers: SANDBOX_RECOGNIZERS,
  });
  const url = wallet.url as string;
  const admin = await issueToken({
    secret: SECRET,
    role: 'admin',
    ttlSeconds: 3600,
    subject: 'console-test',
  });
  async function call(method: string, path: string, body?: unknown, token = admin) {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }
  return { wallet, url, client, call, registry, keys };
}

/** A template whose creation the gated policy holds for one approval. */
export const GATED = '#quill-e2e:E2E:Gated';

/** A policy file: creating a GATED contract needs one approval within an hour; everything else is allowed. */
export function gatedPolicy(): string {
  const file = join(tempDir('quill-gated-policy-'), 'policy.yaml');
  writeFileSync(
    file,
    `rules:\n  - name: gated\n    match: { template: "${GATED}" }\n    action: approve\n    quorum: 1\n    ttl: 1h\n`,
  );
  return file;
}

type ConsoleWallet = Awaited<ReturnType<typeof startConsoleWallet>>;

/** Prepares and submits (202) a note for `party`, or a contract of `template`; the record as accepted. */
export async function submitFor<R = { id: string; status: string; preparedTransactionHash: string }>(
  w: ConsoleWallet,
  party: string,
  template?: string,
): Promise<R> {
  const body = await prepareOn(
    w.client,
    party,
    template
      ? { CreateCommand: { templateId: template, createArguments: { owner: party, n: randomUUID() } } }
      : noteCommand(party),
  );
  const res = await w.call('POST', '/wallet/v1/submissions', body);
  expect(res.status).toBe(202);
  return res.json as R;
}

export async function link(url: string, role: Role, party?: string, subject?: string): Promise<string> {
  const t = await mintLink(SECRET, {
    role,
    ttlSeconds: 600,
    ...(party ? { party } : {}),
    ...(subject ? { subject } : {}),
  });
  return `${url}/console/signin?t=${t}`;
}

/** Opens a sign-in link and presses the button; lands on the console (an approver on its approvals). */
export async function signIn(page: Page, signInUrl: string): Promise<void> {
  await page.goto(signInUrl);
  await Promise.all([
    page.waitForURL(/\/console(\/approvals)?$/),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
}

/** Signs in over plain HTTP (no browser): the session cookie and the page's CSRF token. */
export async function httpSession(url: string, signInUrl: string): Promise<{ cookie: string; csrf: string }> {
  const first = await fetch(signInUrl);
  const html = await first.text();
  const pre = /name="_pre" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const preCookie = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const t = new URL(signInUrl).searchParams.get('t') ?? '';
  const res = await fetch(`${url}/console/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: preCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ t, _pre: pre, next: '/console' }),
  });
  expect(res.status).toBe(303);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const page = await (await fetch(`${url}/console`, { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
  return { cookie, csrf };
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core in the page (the context must bypass CSP to inject it): no serious or critical violation. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
}

/** axe-core's serious and critical violations in the page, one line each (the context must bypass CSP). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  return await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected as a global
    const g = globalThis as any;
    const res = await g.axe.run(g.document, { resultTypes: ['violations'] });
    return (res.violations as { id: string; impact: string; help: string; nodes: { target: string[] }[] }[])
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}
