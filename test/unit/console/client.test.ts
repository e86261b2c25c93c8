// The console's typed in-process client of the wallet API: it calls the app as the signed-in operator (the API's
// own role checks apply), forwards the console request's id, and encodes path parameters once for every page.
import { describe, expect, it } from 'vitest';
import { type AppDeps, createApp } from '../../../src/api/index.ts';
import type { Principal } from '../../../src/auth/index.ts';
import { answer, apiClient } from '../../../src/console/client.ts';

function app() {
  const logs: Record<string, unknown>[] = [];
  // Only what the routes below touch: no key store (503), the access log.
  const deps = { log: (level: string, msg: string, fields?: object) => logs.push({ level, msg, ...fields }) };
  return { app: createApp(deps as unknown as AppDeps), logs };
}

const admin: Principal = { subject: 'op-admin', role: 'admin', party: undefined };

describe('the console API client', () => {
  it('calls as the operator, with its request id, and reads the answer typed by the route', async () => {
    const { app: wallet, logs } = app();
    const api = apiClient(wallet, admin, 'console-req-1');
    const res = await answer(api.wallet.v1.keys.$get());
    expect(res).toEqual({
      status: 503,
      body: {
        error: { code: 'KEYSTORE_UNAVAILABLE', message: 'the key store is not available in this process' },
      },
    });
    expect(logs).toContainEqual(
      expect.objectContaining({ path: '/wallet/v1/keys', requestId: 'console-req-1', subject: 'op-admin' }),
    );
  });

  it("applies the API's role checks to the operator", async () => {
    const { app: wallet } = app();
    const reader = apiClient(wallet, { subject: 'op-read', role: 'read', party: undefined }, undefined);
    const res = await answer(reader.wallet.v1.keys.$get());
    expect(res).toEqual({
      status: 403,
      body: { error: { code: 'FORBIDDEN', message: 'this needs the admin role' } },
    });
  });

  it('encodes path parameters, and refuses an empty one (it would name another route)', async () => {
    const { app: wallet, logs } = app();
    const api = apiClient(wallet, admin, undefined);
    const res = await answer(api.wallet.v1.keys[':fingerprint'].$get({ param: { fingerprint: 'a/b?c d' } }));
    // One segment reached the key route (a slash or ? left as is would have named no route: 404).
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'INVALID_FINGERPRINT' } });
    // As logged: Hono decodes what decodeURI does (the space), not the / or ? that would change the route.
    expect(logs).toContainEqual(expect.objectContaining({ path: '/wallet/v1/keys/a%2Fb%3Fc d' }));
    await expect(api.wallet.v1.keys[':fingerprint'].$get({ param: { fingerprint: '' } })).rejects.toThrow(
      /fingerprint is empty/,
    );
  });
});
