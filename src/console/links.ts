// One-time console sign-in links: a short-lived JWT signed with AUTH_JWT_SECRET, with its own type header and
// audience and no `scope` claim, so it can never pass as an API bearer token (and an API token never as a link).
// Single use: the first redemption claims its `jti` in Redis until the link would have expired anyway.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { jwtVerify, SignJWT } from 'jose';
import type { Principal } from '../auth/index.ts';
import { redisKeys } from '../redis/index.ts';
import { LinkError } from './errors.ts';

const TYPE = 'quill-console-link+jwt';
const AUDIENCE = 'quill-console';
const ROLES = new Set<Principal['role']>(['read', 'submit', 'approve', 'admin']);

export interface LinkRequest {
  role: Principal['role'];
  party?: string;
  ttlSeconds: number;
  /** Who the operator is in the audit; a fresh `operator-…` name by default. */
  subject?: string;
}

export async function mintLink(secret: string, req: LinkRequest): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ console_role: req.role, ...(req.party ? { party: req.party } : {}) })
    .setProtectedHeader({ alg: 'HS256', typ: TYPE })
    .setAudience(AUDIENCE)
    .setSubject(req.subject ?? `operator-${randomBytes(4).toString('hex')}`)
    .setJti(randomBytes(16).toString('base64url'))
    .setIssuedAt(now)
    .setExpirationTime(now + req.ttlSeconds)
    .sign(new TextEncoder().encode(secret));
}

/** Verifies a link and spends it; throws LinkError (invalid, expired or already used). */
export async function redeemLink(
  secret: string,
  token: string,
  redis: Redis,
  prefix: string,
): Promise<Principal> {
  let payload: Record<string, unknown>;
  try {
    const res = await jwtVerify(token, new TextEncoder().encode(secret), {
      algorithms: ['HS256'],
      audience: AUDIENCE,
      typ: TYPE,
      requiredClaims: ['exp', 'jti', 'sub'],
    });
    payload = res.payload;
  } catch {
    throw new LinkError('INVALID_LINK', 'this sign-in link is invalid or has expired: ask for a new one');
  }
  const role = payload.console_role as Principal['role'];
  const party = payload.party;
  if (!ROLES.has(role) || (party !== undefined && (typeof party !== 'string' || party === '')))
    throw new LinkError('INVALID_LINK', 'this sign-in link is invalid: ask for a new one');
  const ttlMs = Math.max(1000, (payload.exp as number) * 1000 - Date.now() + 60_000);
  const first = await redis.set(redisKeys(prefix).consoleLink(payload.jti as string), '1', 'PX', ttlMs, 'NX');
  if (first !== 'OK')
    throw new LinkError('USED_LINK', 'this sign-in link was already used: ask for a new one');
  return { subject: payload.sub as string, role, party: party as string | undefined };
}

/** Where operators reach the console: CONSOLE_PUBLIC_URL, else this host and port. */
export function consoleBaseUrl(at: { publicUrl?: string | undefined; host: string; port: number }): string {
  if (at.publicUrl) return at.publicUrl;
  const host = at.host === '0.0.0.0' || at.host === '::' ? '127.0.0.1' : at.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${at.port}`;
}

/** A one-time sign-in link at `base` (see `consoleBaseUrl`). */
export async function signInLink(secret: string, base: string, req: LinkRequest): Promise<string> {
  return `${base}/console/signin?t=${await mintLink(secret, req)}`;
}
