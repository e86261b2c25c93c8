// Key backends through the API on a wallet with only the file backend: a pkcs11 key is a clear 422 (nothing
// generated), the file backend is the default, and listings name each key's backend.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiHarness } from './harness.ts';

let h: Awaited<ReturnType<typeof apiHarness>>;
beforeAll(async () => {
  h = await apiHarness();
});
afterAll(() => h.close());

it('pkcs11 without PKCS11_MODULE is 422 UNSUPPORTED_BY_BACKEND; file is the default', async () => {
  const admin = await h.token('admin');
  const refused = await h.call('POST', '/wallet/v1/keys', {
    body: { algorithm: 'p256', backend: 'pkcs11' },
    token: admin,
  });
  expect(refused.status).toBe(422);
  expect(refused.json.error).toMatchObject({
    code: 'UNSUPPORTED_BY_BACKEND',
    message: expect.stringContaining('PKCS11_MODULE'),
  });
  const made = await h.call('POST', '/wallet/v1/keys', { body: { algorithm: 'p256' }, token: admin });
  expect(made.status).toBe(201);
  expect(made.json.backend).toBe('file');
  const listed = await h.call('GET', '/wallet/v1/keys', { token: admin });
  expect((listed.json.items as { backend: string }[]).every((k) => k.backend === 'file')).toBe(true);
});
