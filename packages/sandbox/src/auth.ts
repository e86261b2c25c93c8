/**
 * Bearer JWTs as the participant reads them: HS256 with a shared secret (development) or RS256/ES256 via a
 * JWKS URL; standard user tokens in the audience-based form (`aud` contains
 * `https://daml.com/jwt/aud/participant/<participantId>`) or the scope-based form (`scope` contains
 * `daml_ledger_api`); `sub` names the user, whose rights come from its user record. Missing or invalid
 * token → 401, insufficient rights → 403, both with the participant's redacted body (`RedactedError`). With
 * auth off every call is allowed and a token, if sent, is ignored.
 */
import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { type JsCantonErrorBody, SandboxError } from './errors.ts';
import type { SandboxState, UserRecord } from './state/index.ts';

export type AuthConfig = { secret: string } | { jwksUrl: string; audience?: string } | 'none';

export interface Caller {
  /** undefined with auth off. */
  userId?: string;
  wildcard: boolean;
  user?: UserRecord;
}

export const WILDCARD: Caller = { wildcard: true };

/**
 * A security-sensitive error (categories 6 and 7 here) as the JSON API answers it: the participant's gRPC status
 * carries only a redacted message, so `DecodedCantonError.redactedError` gives code "NA", category -1, cause "A
 * security-sensitive error has been received", no context, no resources (ErrorCategory `redactDetails`). The
 * status is the gRPC code's (401 / 403). When resolving the token's user fails, `Endpoints.validateJwtToken` adds
 * `ledger_api_error: "invalid token"` (JsCantonError.tokenProblemError). The detail stays in `message` only,
 * as the participant keeps it in its log.
 */
export class RedactedError extends SandboxError {
  constructor(
    category: 6 | 7,
    detail: string,
    private readonly tokenProblem = false,
  ) {
    super(category === 6 ? 'UNAUTHENTICATED' : 'PERMISSION_DENIED', category, detail);
  }

  override body(correlationId?: string): JsCantonErrorBody {
    const tid = randomBytes(16).toString('hex');
    return {
      code: 'NA',
      cause: 'A security-sensitive error has been received',
      correlationId: correlationId ?? this.correlationId ?? null,
      traceId: tid,
      context: this.tokenProblem ? { ledger_api_error: 'invalid token' } : {},
      resources: [],
      errorCategory: -1,
      grpcCodeValue: this.grpcCode,
      retryInfo: null,
      definiteAnswer: null,
    };
  }
}

/** 401: no token, or one that is invalid, expired or carries no ledger claims (AuthServiceJWT.parseHeader). */
export const unauthenticated = (why: string) => new RedactedError(6, why);
/** 403: the claims do not allow the call (Authorizer, Claims.validForUser and the rights checks). */
export const permissionDenied = (why: string) => new RedactedError(7, why);

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
    if (!m?.[1]) throw unauthenticated('missing bearer token');
    let payload: JWTPayload;
    try {
      payload = this.secret
        ? (await jwtVerify(m[1], this.secret, { algorithms: ['HS256'] })).payload
        : (await jwtVerify(m[1], this.jwks!, { algorithms: ['RS256', 'ES256'] })).payload;
    } catch {
      throw unauthenticated('invalid token');
    }
    const audiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    const participantAudience = `https://daml.com/jwt/aud/participant/${this.state.participantId}`;
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    const wanted = this.config !== 'none' && 'audience' in this.config ? this.config.audience : undefined;
    const audienceOk = wanted === undefined || audiences.includes(wanted);
    const form =
      audiences.includes(participantAudience) || (scopes.includes('daml_ledger_api') && audienceOk);
    if (!form || typeof payload.sub !== 'string' || payload.sub === '')
      throw unauthenticated('invalid token');
    const user = this.state.users.get(payload.sub);
    // UserBasedClaimResolver: an unknown or deactivated user is PERMISSION_DENIED, reported as a token problem.
    if (!user || user.isDeactivated) {
      throw new RedactedError(7, `user ${payload.sub} is unknown or deactivated`, true);
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
  if (!isAdmin(c)) throw permissionDenied('ParticipantAdmin right required');
}

/** ParticipantAdmin, or IdentityProviderAdmin of the identity provider `idp`. */
export function requireIdpAdmin(c: Caller, idp: string): void {
  if (isAdmin(c)) return;
  if (has(c, 'IdentityProviderAdmin') && c.user?.identityProviderId === idp) return;
  throw permissionDenied(
    'ParticipantAdmin or IdentityProviderAdmin of the user\u2019s identity provider required',
  );
}

function canRead(c: Caller, party: string): boolean {
  return has(c, 'CanReadAsAnyParty') || has(c, 'CanReadAs', party) || has(c, 'CanActAs', party);
}

export function requireReadAs(c: Caller, parties: readonly string[], anyParty = false): void {
  if (anyParty && !has(c, 'CanReadAsAnyParty')) throw permissionDenied('CanReadAsAnyParty right required');
  for (const p of parties) if (!canRead(c, p)) throw permissionDenied(`no right to read as ${p}`);
}

export function requireExecuteAs(c: Caller, parties: readonly string[]): void {
  for (const p of parties) {
    if (!(has(c, 'CanActAs', p) || has(c, 'CanExecuteAs', p) || has(c, 'CanExecuteAsAnyParty'))) {
      throw permissionDenied(`no right to act as ${p}`);
    }
  }
}

/**
 * The user id a request acts for, as the participant's `RequiredClaim.MatchUserId` (Authorizer.defaultUserId,
 * Claims.validForUser): an empty id defaults to the token's user; with auth off (wildcard claims, no user id)
 * an empty id is 400 INVALID_TOKEN; a token whose user differs from the given id is 403, for a
 * ParticipantAdmin too. `anyPartyReaders` (completions): a CanReadAsAnyParty token may name any user.
 */
export function effectiveUserId(
  c: Caller,
  given: string | null | undefined,
  opts: { anyPartyReaders?: boolean } = {},
): string {
  const id = given ?? '';
  if (id === '') {
    if (c.userId !== undefined && c.userId !== '') return c.userId;
    throw new SandboxError(
      'INVALID_TOKEN',
      8,
      'The submitted request is missing a user-id: Cannot default user_id field because claims do not specify ' +
        'an user-id. Is authentication turned on?',
      {},
      [],
      false,
    );
  }
  if (opts.anyPartyReaders && has(c, 'CanReadAsAnyParty')) return id;
  if (c.userId !== undefined && c.userId !== id)
    throw permissionDenied(`the token's user ${c.userId} does not match the request's user ${id}`);
  return id;
}
