// OIDC sign-in: authorization code with PKCE (S256), state and nonce; the role and party come from configurable
// claims of the ID token. The state is bound to the browser by a cookie and kept in Redis until its one use,
// so a wrong or replayed state is refused before the code is ever redeemed.

import type { Redis } from 'ioredis';
import * as client from 'openid-client';
import type { Principal } from '../auth/index.ts';
import { redisKeys } from '../redis/index.ts';
import type { OidcSettings } from './deps.ts';
import { OidcError } from './errors.ts';

const PREFERENCE: Principal['role'][] = ['admin', 'approve', 'submit', 'read'];
const STATE_TTL_MS = 10 * 60_000;

export class OidcSignIn {
  private config: Promise<client.Configuration> | undefined;

  constructor(
    private readonly settings: OidcSettings,
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly redirectUri: string,
  ) {}

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

  /** The URL to send the browser to, and the state its cookie must carry back. */
  async start(next: string): Promise<{ url: string; state: string }> {
    const config = await this.discover();
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    await this.redis.set(
      redisKeys(this.prefix).consoleOidc(state),
      JSON.stringify({ verifier, nonce, next }),
      'PX',
      STATE_TTL_MS,
    );
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: this.settings.scope,
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, state };
  }

  /** Redeems the callback: the operator it names and where to go next. */
  async finish(
    callbackUrl: URL,
    cookieState: string | undefined,
  ): Promise<{ principal: Principal; next: string }> {
    const state = callbackUrl.searchParams.get('state');
    if (!state || !cookieState || state !== cookieState)
      throw new OidcError('OIDC_REFUSED', 'the sign-in state does not match this browser: start again');
    const raw = await this.redis.getdel(redisKeys(this.prefix).consoleOidc(state));
    if (!raw)
      throw new OidcError('OIDC_REFUSED', 'this sign-in was already used or has expired: start again');
    const saved = JSON.parse(raw) as { verifier: string; nonce: string; next: string };
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
    const party = claims[this.settings.partyClaim];
    if (party !== undefined && party !== null && (typeof party !== 'string' || party.length > 512))
      throw new OidcError('OIDC_REFUSED', `the ${this.settings.partyClaim} claim must be a party id`);
    return {
      principal: { subject: `oidc:${claims.sub}`, role, party: party ? party : undefined },
      next: saved.next,
    };
  }
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
