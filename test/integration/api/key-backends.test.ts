// Key backends through the API on a wallet with only the file backend: a pkcs11 key is a clear 422 (nothing
// generated), the file backend is the default, and listings name each key's backend.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiHarness } from '../../support/api-harness.ts';

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

it('lists the backends and what each can do; the file backend adopts nothing (422)', async () => {
  const admin = await h.token('admin');
  const listed = await h.call('GET', '/wallet/v1/keys', { token: admin });
  expect(listed.json.backends).toEqual([
    {
      name: 'file',
      summary: expect.any(String),
      configured: true,
      default: true,
      generate: true,
      adopt: false,
    },
    {
      name: 'pkcs11',
      summary: expect.any(String),
      configured: false,
      default: false,
      generate: false,
      adopt: false,
      setUp: expect.stringContaining('PKCS11_MODULE'),
    },
  ]);
  const refused = await h.call('POST', '/wallet/v1/keys/adopt', {
    body: { backend: 'file', ref: 'label:treasury' },
    token: admin,
  });
  expect(refused.status).toBe(422);
  expect(refused.json.error?.code).toBe('UNSUPPORTED_BY_BACKEND');
  for (const body of [
    { backend: 'file' },
    { backend: 'vault', ref: 'x' },
    { backend: 'file', ref: 'x', extra: 1 },
  ]) {
    const bad = await h.call('POST', '/wallet/v1/keys/adopt', { body, token: admin });
    expect(bad.status, JSON.stringify(body)).toBe(400);
    expect(bad.json.error?.code).toBe('INVALID_REQUEST');
  }
});
