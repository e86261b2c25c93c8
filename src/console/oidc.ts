// OIDC sign-in: authorization code with PKCE (S256), state and nonce; the role and party come from configurable
// claims of the ID token. State, nonce, PKCE verifier and `next` travel in a short-lived cookie signed with a key
// derived from the client secret: `/console/oidc/start` is public, so it stores nothing on the server (review
// F6). A wrong, forged or expired state is refused before the code is ever redeemed; the callback clears the
// cookie, and the provider redeems a code once.
import { createHmac } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import * as client from 'openid-client';
import type { Principal } from '../auth/index.ts';
import type { OidcSettings } from './deps.ts';
import { OidcError } from './errors.ts';

const PREFERENCE: Principal['role'][] = ['admin', 'approve', 'submit', 'read'];
/** How long a sign-in at the provider may take (the state cookie's lifetime). */
export const STATE_TTL_SECONDS = 600;
const STATE_TYPE = 'quill-console-oidc-state+jwt';
/** `next` rides in the cookie: a longer one is dropped (the console's home instead). */
const MAX_NEXT = 512;

interface SavedState {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
}

export class OidcSignIn {
  private config: Promise<client.Configuration> | undefined;
  /** Signs the state cookie; its own key, so a state cookie is never anything else signed with the secret. */
  private readonly key: Uint8Array;

  constructor(
    private readonly settings: OidcSettings,
    private readonly redirectUri: string,
  ) {
    this.key = createHmac('sha256', settings.clientSecret).update('quill console oidc state').digest();
  }

  private discover(): Promise<client.Configuration> {
    this.config ??= client
      .discovery(
        new URL(this.settings.issuer),
        this.settings.clientId,
        this.settings.clientSecret,
        undefined,
        // A plain-http issuer is allowed only on loopback (development, tests).
        /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|\/|$)/.test(this.settings.issuer)
          ? { execute: [client.allowInsecureRequests] }
          : undefined,
      )
      .catch((err) => {
        this.config = undefined; // try discovery again next time
        throw new OidcError('OIDC_UNAVAILABLE', 'the identity provider does not answer', { cause: err });
      });
    return this.config;
  }

  /** The URL to send the browser to, and the signed state its cookie must carry back. */
  async start(next: string): Promise<{ url: string; cookie: string }> {
    const config = await this.discover();
    const saved: SavedState = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      next: next.length <= MAX_NEXT ? next : '/console',
    };
    const now = Math.floor(Date.now() / 1000);
    const cookie = await new SignJWT({ ...saved })
      .setProtectedHeader({ alg: 'HS256', typ: STATE_TYPE })
      .setIssuedAt(now)
      .setExpirationTime(now + STATE_TTL_SECONDS)
      .sign(this.key);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: this.settings.scope,
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(saved.verifier),
      code_challenge_method: 'S256',
      state: saved.state,
      nonce: saved.nonce,
    });
    return { url: url.href, cookie };
  }

  /** Redeems the callback: the operator it names and where to go next. */
  async finish(
    callbackUrl: URL,
    cookie: string | undefined,
  ): Promise<{ principal: Principal; next: string }> {
    const state = callbackUrl.searchParams.get('state');
    const saved = cookie ? await this.opened(cookie) : undefined;
    if (!state || !saved || state !== saved.state)
      throw new OidcError('OIDC_REFUSED', 'the sign-in state does not match this browser: start again');
    const config = await this.discover();
    // The redirect URI as registered: the callback's own query on the configured public URL.
    const current = new URL(this.redirectUri);
    current.search = callbackUrl.search;
    let claims: Record<string, unknown> | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: saved.verifier,
        expectedState: state,
        expectedNonce: saved.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims() as Record<string, unknown> | undefined;
    } catch (err) {
      throw new OidcError('OIDC_REFUSED', `the identity provider refused the sign-in (${oneLine(err)})`, {
        cause: err,
      });
    }
    if (!claims || typeof claims.sub !== 'string')
      throw new OidcError('OIDC_REFUSED', 'the identity provider sent no subject');
    const role = roleFrom(claims[this.settings.roleClaim]);
    if (!role)
      throw new OidcError(
        'OIDC_REFUSED',
        `your identity carries no console role (claim ${this.settings.roleClaim}: read, approve, submit or admin)`,
      );
    const party = partyFrom(claims, this.settings.partyClaim);
    if (party === undefined && !this.settings.allowUnscoped)
      throw new OidcError(
        'OIDC_REFUSED',
        `your identity carries no party (claim ${this.settings.partyClaim}); signing in for every party needs CONSOLE_OIDC_ALLOW_UNSCOPED=true`,
      );
    return { principal: { subject: `oidc:${claims.sub}`, role, party }, next: saved.next };
  }

  /** The state cookie's content when it is ours and not expired. */
  private async opened(cookie: string): Promise<SavedState | undefined> {
    try {
      const { payload } = await jwtVerify(cookie, this.key, {
        algorithms: ['HS256'],
        typ: STATE_TYPE,
        requiredClaims: ['exp'],
      });
      const p = payload as Partial<SavedState>;
      const ok = [p.state, p.nonce, p.verifier, p.next].every((v) => typeof v === 'string');
      return ok ? (p as SavedState) : undefined;
    } catch {
      return undefined;
    }
  }
}

/**
 * The operator's party scope, as an API token's: an absent claim means every party (where the deployment allows
 * it: CONSOLE_OIDC_ALLOW_UNSCOPED); anything else must be a
 * non-empty, non-blank party id (an IdP that renders an unset attribute as "" must not grant every party).
 */
export function partyFrom(claims: Record<string, unknown>, name: string): string | undefined {
  const party = claims[name];
  if (party === undefined) return undefined;
  if (typeof party !== 'string' || party.trim() === '' || party.length > 512)
    throw new OidcError('OIDC_REFUSED', `the ${name} claim must be a party id (it is empty or not text)`);
  return party;
}

function roleFrom(v: unknown): Principal['role'] | undefined {
  const given = (Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[\s,]+/) : []).filter(
    (x): x is string => typeof x === 'string',
  );
  return PREFERENCE.find((r) => given.includes(r) || given.includes(`quill:${r}`));
}

function oneLine(err: unknown): string {
  const e = err as { error?: string; message?: string };
  return (e.error ?? e.message ?? 'unknown error').split('\n')[0]?.slice(0, 200) ?? '';
}
