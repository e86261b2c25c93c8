// The operator console at /console (API role): its address, session lifetimes and OIDC sign-in.
import { z } from 'zod';
import { defined, duration, noTrailingSlash, optionalText, secret, url } from './env.ts';
import { section } from './section.ts';

export const operatorConsole = section({
  summary: 'The operator console at `/console` (API role): its address, sessions and OIDC sign-in.',
  vars: {
    CONSOLE_ENABLED: z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .default('true')
      .describe('serve the operator console at `/console` in the API role'),
    CONSOLE_PUBLIC_URL: url(['http:', 'https:'])
      .optional()
      .describe(
        "the console's address as operators reach it (base of sign-in links, OIDC redirect URI " +
          '`<url>/console/oidc/callback`); `https://…` makes the session cookie `Secure` with the ' +
          '`__Host-` prefix',
      ),
    CONSOLE_SESSION_IDLE: duration('30m').describe('a console session ends after this long unused'),
    CONSOLE_SESSION_MAX: duration('12h').describe(
      'a console session ends this long after sign-in, whatever happens',
    ),
    CONSOLE_OIDC_ISSUER: url(['http:', 'https:'])
      .optional()
      .describe(
        'OIDC sign-in to the console: the issuer (with the client id and secret, and ' +
          '`CONSOLE_PUBLIC_URL`); a plain-http issuer only on loopback',
      ),
    CONSOLE_OIDC_CLIENT_ID: optionalText.describe('the OIDC client id (with `CONSOLE_OIDC_ISSUER`)'),
    CONSOLE_OIDC_CLIENT_SECRET: secret(optionalText, 'the OIDC client secret (with `CONSOLE_OIDC_ISSUER`)'),
    CONSOLE_OIDC_ROLE_CLAIM: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .default('quill_role')
      .describe(
        "the ID-token claim holding the operator's role (`read`, `approve`, `submit`, `admin`, or " +
          '`quill:<role>`; a list: the highest)',
      ),
    CONSOLE_OIDC_PARTY_CLAIM: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .default('quill_party')
      .describe("the ID-token claim holding the operator's party"),
    CONSOLE_OIDC_ALLOW_UNSCOPED: z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .default('false')
      .describe(
        'whether an OIDC operator whose ID token has no party claim is signed in for every party (`true`) or ' +
          'refused (`false`: an identity provider that forgot the claim grants nothing)',
      ),
    CONSOLE_OIDC_SCOPE: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .default('openid profile')
      .describe('the scopes asked for at OIDC sign-in'),
  },
  outputs: { console: true },
  build: (e, problem) => {
    const oidcSet = [e.CONSOLE_OIDC_ISSUER, e.CONSOLE_OIDC_CLIENT_ID, e.CONSOLE_OIDC_CLIENT_SECRET].filter(
      (x) => x,
    );
    if (oidcSet.length > 0 && oidcSet.length < 3)
      problem(
        'CONSOLE_OIDC_ISSUER, CONSOLE_OIDC_CLIENT_ID and CONSOLE_OIDC_CLIENT_SECRET: set all three or none',
      );
    if (oidcSet.length === 3 && !e.CONSOLE_PUBLIC_URL)
      problem(
        'CONSOLE_OIDC_ISSUER needs CONSOLE_PUBLIC_URL (the redirect URI is ' +
          '<CONSOLE_PUBLIC_URL>/console/oidc/callback)',
      );
    if (e.CONSOLE_SESSION_IDLE > e.CONSOLE_SESSION_MAX)
      problem('CONSOLE_SESSION_IDLE must not be longer than CONSOLE_SESSION_MAX');
    return {
      console: {
        enabled: e.CONSOLE_ENABLED === 'true',
        ...defined({ publicUrl: e.CONSOLE_PUBLIC_URL ? noTrailingSlash(e.CONSOLE_PUBLIC_URL) : undefined }),
        idleMs: e.CONSOLE_SESSION_IDLE * 1000,
        absoluteMs: e.CONSOLE_SESSION_MAX * 1000,
        ...(e.CONSOLE_OIDC_ISSUER && e.CONSOLE_OIDC_CLIENT_ID && e.CONSOLE_OIDC_CLIENT_SECRET
          ? {
              oidc: {
                issuer: e.CONSOLE_OIDC_ISSUER,
                clientId: e.CONSOLE_OIDC_CLIENT_ID,
                clientSecret: e.CONSOLE_OIDC_CLIENT_SECRET,
                roleClaim: e.CONSOLE_OIDC_ROLE_CLAIM,
                partyClaim: e.CONSOLE_OIDC_PARTY_CLAIM,
                allowUnscoped: e.CONSOLE_OIDC_ALLOW_UNSCOPED === 'true',
                scope: e.CONSOLE_OIDC_SCOPE,
              },
            }
          : {}),
      },
    };
  },
});
