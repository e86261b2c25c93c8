// A real OpenID provider (oidc-provider) for the console's OIDC tests: one confidential client, the console's
// callback, PKCE required, and accounts whose claims (`quill_role`, `quill_party`) travel in the ID token.
import type { Server } from 'node:http';
// @ts-expect-error oidc-provider ships no type declarations
import Provider from 'oidc-provider';

export const CLIENT_ID = 'quill-console';
export const CLIENT_SECRET = 'a-client-secret-for-the-test-only';

/** Listens on `port`; `accounts` maps a subject to its extra claims. */
export function startIdp(
  port: number,
  consoleUrl: string,
  accounts: Record<string, Record<string, unknown>>,
): { issuer: string; server: Server } {
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [`${consoleUrl}/console/oidc/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], profile: ['quill_role', 'quill_party'] },
    conformIdTokenClaims: false, // the role and party travel in the ID token
    cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx: unknown, sub: string) {
      return { accountId: sub, claims: async () => ({ sub, ...(accounts[sub] ?? {}) }) };
    },
  });
  return { issuer, server: provider.listen(port) };
}
