// The participant's JSON Ledger API and the wallet's own token for it (fixed, from a file, or OAuth).
import { defined, intIn, noTrailingSlash, optionalText, secret, url } from './env.ts';
import { section } from './section.ts';

/** Structurally `LedgerTokenSettings` (packages/canton/src/ledger/token.ts, which knows no config). */
type LedgerToken =
  | { static: string }
  | { file: string }
  | {
      oauth: { tokenUrl: string; clientId: string; clientSecret: string; audience?: string; scope?: string };
    };

export const ledger = section({
  summary: "The participant's JSON Ledger API and the wallet's own token for it (at most one token source).",
  vars: {
    LEDGER_URL: url(['http:', 'https:'])
      .optional()
      .describe(
        "the participant's JSON Ledger API; unset = embedded sandbox (`quill serve --sandbox|--demo`)",
      ),
    LEDGER_TOKEN: secret(optionalText, "the wallet's own ledger token, fixed"),
    LEDGER_TOKEN_FILE: optionalText.describe(
      "or: a file holding the wallet's ledger token, re-read at each fetch",
    ),
    LEDGER_OAUTH_TOKEN_URL: url(['http:', 'https:'])
      .optional()
      .describe(
        "or: OAuth client credentials for the wallet's ledger token, from this token endpoint (the token " +
          'is cached until a minute before it expires)',
      ),
    LEDGER_OAUTH_CLIENT_ID: optionalText.describe('the OAuth client id (with `LEDGER_OAUTH_TOKEN_URL`)'),
    LEDGER_OAUTH_CLIENT_SECRET: secret(
      optionalText,
      'the OAuth client secret (with `LEDGER_OAUTH_TOKEN_URL`)',
    ),
    LEDGER_OAUTH_AUDIENCE: optionalText.describe('the `audience` asked for with the OAuth token, if any'),
    LEDGER_OAUTH_SCOPE: optionalText.describe('the `scope` asked for with the OAuth token, if any'),
    LEDGER_USER_ID: optionalText.describe(
      'the ledger user the wallet executes as (`userId`, part of the change id); unset = the user the ledger ' +
        'token names (`GET /v2/authenticated-user`). Required without a ledger token: `quill serve` refuses to ' +
        'start, as a participant without auth refuses an empty `userId`',
    ),
    LEDGER_TIMEOUT_MS: intIn(100, 600_000, 30_000).describe('timeout of one ledger call'),
  },
  outputs: { ledgerUrl: true, ledgerToken: true, ledgerUserId: true, ledgerTimeoutMs: true },
  build: (e, problem) => {
    const sources = [e.LEDGER_TOKEN, e.LEDGER_TOKEN_FILE, e.LEDGER_OAUTH_TOKEN_URL].filter((x) => x);
    if (sources.length > 1)
      problem('LEDGER_TOKEN, LEDGER_TOKEN_FILE and LEDGER_OAUTH_TOKEN_URL: set at most one');
    if (e.LEDGER_OAUTH_TOKEN_URL && !(e.LEDGER_OAUTH_CLIENT_ID && e.LEDGER_OAUTH_CLIENT_SECRET)) {
      problem('LEDGER_OAUTH_TOKEN_URL needs LEDGER_OAUTH_CLIENT_ID and LEDGER_OAUTH_CLIENT_SECRET');
    }
    let ledgerToken: LedgerToken | undefined;
    if (e.LEDGER_TOKEN) ledgerToken = { static: e.LEDGER_TOKEN };
    else if (e.LEDGER_TOKEN_FILE) ledgerToken = { file: e.LEDGER_TOKEN_FILE };
    else if (e.LEDGER_OAUTH_TOKEN_URL && e.LEDGER_OAUTH_CLIENT_ID && e.LEDGER_OAUTH_CLIENT_SECRET) {
      ledgerToken = {
        oauth: {
          tokenUrl: e.LEDGER_OAUTH_TOKEN_URL,
          clientId: e.LEDGER_OAUTH_CLIENT_ID,
          clientSecret: e.LEDGER_OAUTH_CLIENT_SECRET,
          ...defined({ audience: e.LEDGER_OAUTH_AUDIENCE, scope: e.LEDGER_OAUTH_SCOPE }),
        },
      };
    }
    return {
      ...defined({
        ledgerUrl: e.LEDGER_URL ? noTrailingSlash(e.LEDGER_URL) : undefined,
        /** The wallet's own ledger token; absent = no bearer token. */
        ledgerToken,
        ledgerUserId: e.LEDGER_USER_ID,
      }),
      ledgerTimeoutMs: e.LEDGER_TIMEOUT_MS,
    };
  },
});
