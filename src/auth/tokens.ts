// Bearer JWTs verified with jose: HS256 shared secret or a JWKS URL (pinned algorithms), roles and party scope.
import { randomBytes, webcrypto } from 'node:crypto';
import { createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey, jwtVerify, SignJWT } from 'jose';
import { AuthError } from './errors.ts';
import { type Principal, ROLE_LEVEL, type Role } from './principal.ts';

export interface AuthSettings {
  jwtSecret?: string;
  /** While rotating: the secret before `jwtSecret`, accepted (never signed with) until `previousJwtSecretUntil`. */
  previousJwtSecret?: string;
  /** The end of the previous secret's grace period, ms since the epoch. */
  previousJwtSecretUntil?: number;
  jwksUrl?: string;
  algorithms: string[];
  issuer?: string;
  audience?: string;
  /** Longest accepted lifetime (exp - iat, or exp - now without iat); unset = 24 h. */
  maxTokenTtlSeconds?: number;
  /** With a JWKS: accept tokens for any audience (`--insecure-any-audience`); otherwise `audience` is required. */
  anyAudience?: boolean;
}

const DEFAULT_MAX_TTL = 86_400;
/** Clock skew tolerated on exp and iat. */
const SKEW_SECONDS = 30;

export type Verifier = (token: string) => Promise<Principal>;

const SCOPE_ROLE = /(?:^|\s)quill:(read|submit|approve|admin)(?=\s|$)/g;

/**
 * The one role claim: `scope` (OAuth 2 space-separated scopes) holding `quill:read`, `quill:submit`,
 * `quill:approve` or `quill:admin` (the highest counts). A namespaced scope cannot be confused with an identity provider's generic
 * `role`/`roles` claims, which are ignored.
 */
function roleOf(payload: JWTPayload): Role {
  const claimed =
    typeof payload.scope === 'string' ? [...payload.scope.matchAll(SCOPE_ROLE)].map((m) => m[1] as Role) : [];
  if (claimed.length === 0)
    throw new AuthError(
      'UNAUTHENTICATED',
      'the token carries no quill role (scope quill:read, quill:submit, quill:approve or quill:admin)',
    );
  return claimed.reduce((a, b) => (ROLE_LEVEL[b] > ROLE_LEVEL[a] ? b : a));
}

/** Bounded lifetime: exp is required (jose), exp - iat (or exp - now) at most the maximum, iat not ahead. */
function checkLifetime(payload: JWTPayload, maxTtl: number): void {
  const now = Math.floor(Date.now() / 1000);
  const exp = payload.exp as number;
  if (payload.iat !== undefined && payload.iat > now + SKEW_SECONDS)
    throw new AuthError('UNAUTHENTICATED', 'the token is issued in the future (iat)');
  const lifetime = exp - (payload.iat ?? now);
  if (lifetime > maxTtl)
    throw new AuthError('UNAUTHENTICATED', `the token lives longer than AUTH_MAX_TOKEN_TTL (${maxTtl} s)`);
}

/**
 * The token's party scope, decided here once: absent means every party; anything else must be a non-empty
 * string (an empty or blank claim would otherwise filter nothing and see every party).
 */
function partyOf(payload: JWTPayload): string | undefined {
  if (payload.party === undefined) return undefined;
  if (typeof payload.party !== 'string' || payload.party.trim() === '') {
    throw new AuthError('UNAUTHENTICATED', 'the party claim must be a non-empty string');
  }
  return payload.party;
}

/** How long a verified token is answered from memory at most (a JWKS key removed takes effect within it). */
const VERIFIED_CACHE_MS = 60_000;
const VERIFIED_CACHE_SIZE = 1000;

/**
 * Builds the token verifier; undefined settings mean the caller must decide about --insecure-no-auth. A token
 * verified once is answered from memory (the exact string, so a changed byte is verified afresh) until it
 * expires, at most 60 s: callers reuse a token for many requests, and HS256 verification through WebCrypto was
 * 5% of an accept's CPU.
 */
export function createVerifier(s: AuthSettings, now: () => number = Date.now): Verifier {
  let key: Promise<webcrypto.CryptoKey> | JWTVerifyGetKey;
  // The previous secret of a rotation: tried only when the current one does not match, and only until its end.
  let previous: { key: Promise<webcrypto.CryptoKey>; until: number } | undefined;
  // Imported once: jose would otherwise import the raw secret again for every request.
  if (s.jwtSecret) {
    key = hmacKey(s.jwtSecret);
    if (s.previousJwtSecret !== undefined) {
      if (s.previousJwtSecretUntil === undefined)
        throw new AuthError('CONFIG', 'a previous secret needs the end of its grace period');
      previous = { key: hmacKey(s.previousJwtSecret), until: s.previousJwtSecretUntil };
    }
  } else if (s.jwksUrl) {
    // An identity provider issues tokens for many services: without an audience, any of them would do here.
    if (!s.audience && !s.anyAudience)
      throw new AuthError('CONFIG', 'AUTH_JWKS_URL needs AUTH_AUDIENCE (or --insecure-any-audience)');
    key = createRemoteJWKSet(new URL(s.jwksUrl), { cooldownDuration: 30_000, cacheMaxAge: 600_000 });
  } else throw new AuthError('CONFIG', 'no AUTH_JWT_SECRET or AUTH_JWKS_URL');
  const algorithms = s.jwtSecret ? ['HS256'] : s.algorithms;
  const verified = new Map<string, { principal: Principal; until: number }>();
  return async (token: string) => {
    const hit = verified.get(token);
    if (hit && now() < hit.until) return hit.principal;
    if (hit) verified.delete(token);
    const { principal, exp, graceEnd } = await verify(token);
    if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
    // jose accepts a token until exp + the clock tolerance; never longer from memory, nor past the grace period
    // of the previous secret that signed it.
    verified.set(token, {
      principal,
      until: Math.min(
        (exp + SKEW_SECONDS) * 1000,
        now() + VERIFIED_CACHE_MS,
        graceEnd ?? Number.POSITIVE_INFINITY,
      ),
    });
    return principal;
  };
  async function verify(token: string): Promise<{ principal: Principal; exp: number; graceEnd?: number }> {
    let payload: JWTPayload;
    let graceEnd: number | undefined;
    try {
      try {
        const res =
          key instanceof Promise
            ? await jwtVerify(token, await key, opts())
            : await jwtVerify(token, key as JWTVerifyGetKey, opts());
        payload = res.payload;
      } catch (err) {
        // Signed with another secret: the previous one, within its grace period (after it, the same 401 as any
        // unknown secret's token).
        const code = (err as { code?: string }).code;
        if (!previous || code !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' || now() >= previous.until)
          throw err;
        payload = (await jwtVerify(token, await previous.key, opts())).payload;
        graceEnd = previous.until;
      }
    } catch (err) {
      const code = (err as { code?: string }).code;
      throw new AuthError(
        'UNAUTHENTICATED',
        code === 'ERR_JWT_EXPIRED'
          ? 'the token has expired'
          : code === 'ERR_JWKS_NO_MATCHING_KEY'
            ? 'no key of the JWKS matches the token'
            : 'the token is invalid',
        { cause: err },
      );
    }
    const role = roleOf(payload);
    checkLifetime(payload, s.maxTokenTtlSeconds ?? DEFAULT_MAX_TTL);
    // Without a subject, tokens would share one idempotency scope and one audit name: refused.
    if (typeof payload.sub !== 'string' || payload.sub.trim() === '') {
      throw new AuthError('UNAUTHENTICATED', 'the token has no subject (sub)');
    }
    const principal = { subject: payload.sub, role, party: partyOf(payload) };
    return { principal, exp: payload.exp as number, ...(graceEnd !== undefined ? { graceEnd } : {}) };
  }
  function opts() {
    return {
      algorithms,
      requiredClaims: ['exp'],
      clockTolerance: SKEW_SECONDS,
      ...(s.issuer ? { issuer: s.issuer } : {}),
      ...(s.audience ? { audience: s.audience } : {}),
    };
  }
}

function hmacKey(secret: string): Promise<webcrypto.CryptoKey> {
  return webcrypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
}

/**
 * What a process says at start about a rotation's previous secret (never the secret): until when it is
 * accepted and how long that is from now, or that its grace period is over. Undefined without one.
 */
export function previousSecretNotice(
  s: Pick<AuthSettings, 'previousJwtSecret' | 'previousJwtSecretUntil'>,
  now: number = Date.now(),
): { level: 'info' | 'warn'; msg: string; fields: { previousSecretUntil: string } } | undefined {
  if (s.previousJwtSecret === undefined || s.previousJwtSecretUntil === undefined) return undefined;
  const until = new Date(s.previousJwtSecretUntil).toISOString();
  const left = s.previousJwtSecretUntil - now;
  if (left <= 0)
    return {
      level: 'warn',
      msg: `tokens signed with the previous secret are refused: its grace period ended at ${until} (AUTH_JWT_PREVIOUS_SECRET_UNTIL); remove the previous secret`,
      fields: { previousSecretUntil: until },
    };
  return {
    level: 'info',
    msg: `tokens signed with the previous secret are accepted until ${until} (${humanDuration(left)} from now), then refused`,
    fields: { previousSecretUntil: until },
  };
}

function humanDuration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 360) / 10} h`;
  return `${Math.round(s / 8640) / 10} d`;
}

const TTL = /^(\d+)(s|m|h|d)$/;

/** Parses a lifetime like 90s, 30m, 1h, 7d into seconds. */
export function parseTtl(text: string): number {
  const m = TTL.exec(text.trim());
  if (!m)
    throw new AuthError(
      'BAD_INPUT',
      `invalid ttl ${JSON.stringify(text)}: use a number with s, m, h or d (e.g. 1h)`,
    );
  const n = Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as 's' | 'm' | 'h' | 'd'];
  if (n <= 0 || n > 366 * 86_400) throw new AuthError('BAD_INPUT', 'ttl must be between 1s and 366d');
  return n;
}

/** Mints an HS256 token for `quill tokens issue` and for tests. */
export async function issueToken(opts: {
  secret: string;
  role: Role;
  party?: string;
  ttlSeconds: number;
  subject?: string;
  issuer?: string;
  audience?: string;
}): Promise<string> {
  let jwt = new SignJWT({ scope: `quill:${opts.role}`, ...(opts.party ? { party: opts.party } : {}) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    // A distinct subject per token by default: subjects name the caller in the audit and scope its idempotency keys.
    .setSubject(opts.subject ?? `tok-${randomBytes(8).toString('hex')}`)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + opts.ttlSeconds);
  if (opts.issuer) jwt = jwt.setIssuer(opts.issuer);
  if (opts.audience) jwt = jwt.setAudience(opts.audience);
  return jwt.sign(new TextEncoder().encode(opts.secret));
}
