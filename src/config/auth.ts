// How API tokens are verified: a shared HS256 secret or a JWKS, the claims required, the longest lifetime.
import { z } from 'zod';
import { defined, duration, list, optionalText, type Problem, readSecretFile, secret, url } from './env.ts';
import { section } from './section.ts';

const JWKS_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

export const auth = section({
  summary:
    'API tokens: how they are verified (a shared secret or a JWKS), the claims required, their lifetime.',
  vars: {
    AUTH_JWT_SECRET: secret(
      z
        .string()
        .min(32, { error: 'must be at least 32 characters (HS256 needs a strong secret)' })
        .optional(),
      'HS256 secret (≥ 32 characters) for API tokens; `quill tokens issue` signs with it',
    ),
    AUTH_JWT_SECRET_FILE: optionalText.describe(
      'or: a file holding the HS256 secret (one trailing newline dropped), read at start; keeps it out of the environment',
    ),
    AUTH_JWT_PREVIOUS_SECRET: secret(
      z.string().optional(),
      'while rotating: the HS256 secret tokens were signed with before `AUTH_JWT_SECRET`; they are still accepted ' +
        'until `AUTH_JWT_PREVIOUS_SECRET_UNTIL`, never signed with (docs/operations.md, "Rotating secrets")',
    ),
    AUTH_JWT_PREVIOUS_SECRET_FILE: optionalText.describe(
      'or: a file holding the previous secret (one trailing newline dropped), read at start',
    ),
    AUTH_JWT_PREVIOUS_SECRET_UNTIL: optionalText.describe(
      'when the previous secret stops being accepted: an ISO 8601 time with its zone (`2026-12-01T12:00:00Z`), ' +
        'the same for every process; required with a previous secret',
    ),
    AUTH_JWKS_URL: url(['http:', 'https:'])
      .optional()
      .describe('or: verify API tokens against this JWKS (needs `AUTH_AUDIENCE`)'),
    AUTH_JWT_ALGORITHMS: list.describe(
      'the algorithms accepted from the JWKS, comma-separated (pinned); unset = `RS256,ES256`',
    ),
    AUTH_ISSUER: optionalText.describe('required `iss` of API tokens'),
    AUTH_AUDIENCE: optionalText.describe('required `aud` of API tokens (required with `AUTH_JWKS_URL`)'),
    AUTH_MAX_TOKEN_TTL: duration('24h').describe(
      'longest accepted token lifetime (`exp - iat`, or `exp - now` without `iat`; `90s`, `30m`, `24h`, ' +
        '`7d`); tokens without `exp` or with `iat` more than 30 s ahead are refused; `quill tokens issue ' +
        '--ttl` may not exceed it',
    ),
  },
  outputs: { auth: true },
  build: (e, problem) => {
    if (e.AUTH_JWT_SECRET !== undefined && e.AUTH_JWT_SECRET_FILE !== undefined)
      problem('AUTH_JWT_SECRET and AUTH_JWT_SECRET_FILE are both set: choose one');
    const fromFile =
      e.AUTH_JWT_SECRET_FILE !== undefined
        ? readSecretFile(e.AUTH_JWT_SECRET_FILE, 'AUTH_JWT_SECRET_FILE', problem)
        : undefined;
    if (fromFile !== undefined && fromFile.length > 0 && fromFile.length < 32)
      problem(
        'AUTH_JWT_SECRET_FILE: the secret must be at least 32 characters (HS256 needs a strong secret)',
      );
    const jwtSecret = e.AUTH_JWT_SECRET ?? (fromFile && fromFile.length >= 32 ? fromFile : undefined);
    if (jwtSecret !== undefined && e.AUTH_JWKS_URL !== undefined) {
      problem('AUTH_JWT_SECRET and AUTH_JWKS_URL are both set: choose one');
    }
    const previous = previousSecret(e, jwtSecret, problem);
    for (const alg of e.AUTH_JWT_ALGORITHMS) {
      if (!JWKS_ALGORITHMS.includes(alg))
        problem(`AUTH_JWT_ALGORITHMS: ${alg} is not one of ${JWKS_ALGORITHMS.join(', ')}`);
    }
    return {
      auth: {
        ...defined({
          jwtSecret,
          previousJwtSecret: previous?.secret,
          previousJwtSecretUntil: previous?.until,
          jwksUrl: e.AUTH_JWKS_URL,
          issuer: e.AUTH_ISSUER,
          audience: e.AUTH_AUDIENCE,
        }),
        maxTokenTtlSeconds: e.AUTH_MAX_TOKEN_TTL,
        algorithms: jwtSecret
          ? ['HS256']
          : e.AUTH_JWT_ALGORITHMS.length
            ? e.AUTH_JWT_ALGORITHMS
            : ['RS256', 'ES256'],
      },
    };
  },
});

/** An ISO 8601 time with a zone (Z or ±hh:mm): a time without one would be read in each host's own zone. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * The previous HS256 secret of a rotation and the end of its grace period (ms since the epoch). Refused: a
 * previous secret without a current one (or beside a JWKS), one equal to the current, shorter than 32
 * characters, or without a parsable end; an end without a previous secret.
 */
function previousSecret(
  e: {
    AUTH_JWT_SECRET?: string | undefined;
    AUTH_JWT_SECRET_FILE?: string | undefined;
    AUTH_JWT_PREVIOUS_SECRET?: string | undefined;
    AUTH_JWT_PREVIOUS_SECRET_FILE?: string | undefined;
    AUTH_JWT_PREVIOUS_SECRET_UNTIL?: string | undefined;
  },
  current: string | undefined,
  problem: Problem,
): { secret: string; until: number } | undefined {
  const direct = e.AUTH_JWT_PREVIOUS_SECRET === '' ? undefined : e.AUTH_JWT_PREVIOUS_SECRET;
  const file = e.AUTH_JWT_PREVIOUS_SECRET_FILE;
  const untilText = e.AUTH_JWT_PREVIOUS_SECRET_UNTIL;
  if (direct === undefined && file === undefined) {
    if (untilText !== undefined)
      problem(
        'AUTH_JWT_PREVIOUS_SECRET_UNTIL is set without AUTH_JWT_PREVIOUS_SECRET or AUTH_JWT_PREVIOUS_SECRET_FILE',
      );
    return undefined;
  }
  const name = file !== undefined ? 'AUTH_JWT_PREVIOUS_SECRET_FILE' : 'AUTH_JWT_PREVIOUS_SECRET';
  if (direct !== undefined && file !== undefined) {
    problem('AUTH_JWT_PREVIOUS_SECRET and AUTH_JWT_PREVIOUS_SECRET_FILE are both set: choose one');
    return undefined;
  }
  const secret = file !== undefined ? readSecretFile(file, name, problem) : direct;
  let ok = secret !== undefined && secret.length > 0;
  if (e.AUTH_JWT_SECRET === undefined && e.AUTH_JWT_SECRET_FILE === undefined) {
    problem(
      `${name} needs the current secret too (AUTH_JWT_SECRET or AUTH_JWT_SECRET_FILE): tokens are signed with it`,
    );
    ok = false;
  } else if (ok && current !== undefined && secret === current) {
    problem(
      `${name}: the previous secret is the current one (AUTH_JWT_SECRET${e.AUTH_JWT_SECRET_FILE !== undefined ? '_FILE' : ''})`,
    );
    ok = false;
  }
  if (ok && (secret as string).length < 32) {
    problem(`${name}: the secret must be at least 32 characters (HS256 needs a strong secret)`);
    ok = false;
  }
  let until: number | undefined;
  if (untilText === undefined)
    problem(`${name} needs AUTH_JWT_PREVIOUS_SECRET_UNTIL: when the previous secret stops being accepted`);
  else {
    const ms = ISO_TIME.test(untilText) ? Date.parse(untilText) : Number.NaN;
    if (Number.isNaN(ms))
      problem(
        'AUTH_JWT_PREVIOUS_SECRET_UNTIL: must be an ISO 8601 time with its zone (e.g. 2026-12-01T12:00:00Z)',
      );
    else until = ms;
  }
  return ok && until !== undefined ? { secret: secret as string, until } : undefined;
}
