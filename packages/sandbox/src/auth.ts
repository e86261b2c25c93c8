/**
 * Bearer JWTs as the participant reads them: HS256 with a shared secret (development) or RS256/ES256 via a
 * JWKS URL; standard user tokens in the audience-based form (`aud` contains
 * `https://daml.com/jwt/aud/participant/<participantId>`) or the scope-based form (`scope` contains
 * `daml_ledger_api`); `sub` names the user, whose rights come from its user record. Missing or invalid
 * token → 401 UNAUTHENTICATED, insufficient rights → 403 PERMISSION_DENIED. With auth off every call is
 * allowed and a token, if sent, is ignored.
 */
import { createRemoteJWKSet, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { err } from './errors.ts';
import type { SandboxState, UserRecord } from './state/index.ts';

export type AuthConfig = { secret: string } | { jwksUrl: string; audience?: string } | 'none';

export interface Caller {
  /** undefined with auth off. */
  userId?: string;
  wildcard: boolean;
  user?: UserRecord;
}

export const WILDCARD: Caller = { wildcard: true };

export class Authenticator {
  private readonly jwks?: ReturnType<typeof createRemoteJWKSet>;
  private readonly secret?: Uint8Array;

  constructor(
    readonly config: AuthConfig,
    private readonly state: SandboxState,
  ) {
    if (config !== 'none' && 'secret' in config) this.secret = new TextEncoder().encode(config.secret);
    if (config !== 'none' && 'jwksUrl' in config) this.jwks = createRemoteJWKSet(new URL(config.jwksUrl));
  }

  get enabled(): boolean {
    return this.config !== 'none';
  }

  async authenticate(header: string | undefined): Promise<Caller> {
    if (!this.enabled) return WILDCARD;
    const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    if (!m?.[1]) throw err.unauthenticated('missing bearer token');
    let payload: JWTPayload;
    try {
      payload = this.secret
        ? (await jwtVerify(m[1], this.secret, { algorithms: ['HS256'] })).payload
        : (await jwtVerify(m[1], this.jwks!, { algorithms: ['RS256', 'ES256'] })).payload;
    } catch {
      throw err.unauthenticated('invalid token');
    }
    const audiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    const participantAudience = `https://daml.com/jwt/aud/participant/${this.state.participantId}`;
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    const wanted = this.config !== 'none' && 'audience' in this.config ? this.config.audience : undefined;
    const audienceOk = wanted === undefined || audiences.includes(wanted);
    const form =
      audiences.includes(participantAudience) || (scopes.includes('daml_ledger_api') && audienceOk);
    if (!form || typeof payload.sub !== 'string' || payload.sub === '')
      throw err.unauthenticated('invalid token');
    const user = this.state.users.get(payload.sub);
    if (!user || user.isDeactivated) {
      throw err.permissionDenied(`user ${payload.sub} is unknown or deactivated`);
    }
    return { userId: user.id, wildcard: false, user };
  }

  /** An HS256 user token (only when auth uses a shared secret, or a harmless one with auth off). */
  async mint(userId: string, ttlSeconds = 3600): Promise<string> {
    const secret = this.secret ?? new TextEncoder().encode('auth-is-off');
    if (this.jwks) throw new Error('tokens cannot be minted when auth uses a JWKS URL');
    return new SignJWT({ scope: 'daml_ledger_api' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
      .sign(secret);
  }
}

function has(c: Caller, kind: string, party?: string): boolean {
  return (
    c.wildcard ||
    (c.user?.rights.some((r) => r.kind === kind && (party === undefined || r.party === party)) ?? false)
  );
}

export function isAdmin(c: Caller): boolean {
  return has(c, 'ParticipantAdmin');
}

export function requireAdmin(c: Caller): void {
  if (!isAdmin(c)) throw err.permissionDenied('ParticipantAdmin right required');
}

/** ParticipantAdmin, or IdentityProviderAdmin of the identity provider `idp`. */
export function requireIdpAdmin(c: Caller, idp: string): void {
  if (isAdmin(c)) return;
  if (has(c, 'IdentityProviderAdmin') && c.user?.identityProviderId === idp) return;
  throw err.permissionDenied(
    'ParticipantAdmin or IdentityProviderAdmin of the user\u2019s identity provider required',
  );
}

function canRead(c: Caller, party: string): boolean {
  return has(c, 'CanReadAsAnyParty') || has(c, 'CanReadAs', party) || has(c, 'CanActAs', party);
}

export function requireReadAs(c: Caller, parties: readonly string[], anyParty = false): void {
  if (anyParty && !has(c, 'CanReadAsAnyParty'))
    throw err.permissionDenied('CanReadAsAnyParty right required');
  for (const p of parties) if (!canRead(c, p)) throw err.permissionDenied(`no right to read as ${p}`);
}

export function requireExecuteAs(c: Caller, parties: readonly string[]): void {
  for (const p of parties) {
    if (!(has(c, 'CanActAs', p) || has(c, 'CanExecuteAs', p) || has(c, 'CanExecuteAsAnyParty'))) {
      throw err.permissionDenied(`no right to act as ${p}`);
    }
  }
}

/** The user id a request acts for: the token's user, else the body's (auth off). */
export function effectiveUserId(c: Caller, given: string | null | undefined): string {
  if (given && given !== '') {
    if (!c.wildcard && c.userId !== given && !isAdmin(c))
      throw err.permissionDenied('user id does not match the token');
    return given;
  }
  return c.userId ?? '';
}
