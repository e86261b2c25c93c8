// How API tokens are verified: a shared HS256 secret or a JWKS, the claims required, the longest lifetime.
import { z } from 'zod';
import { defined, duration, list, optionalText, readSecretFile, secret, url } from './env.ts';
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
    for (const alg of e.AUTH_JWT_ALGORITHMS) {
      if (!JWKS_ALGORITHMS.includes(alg))
        problem(`AUTH_JWT_ALGORITHMS: ${alg} is not one of ${JWKS_ALGORITHMS.join(', ')}`);
    }
    return {
      auth: {
        ...defined({
          jwtSecret,
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
