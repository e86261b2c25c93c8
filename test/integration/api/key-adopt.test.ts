// A key made in an HSM by its own tools, taken over through the API: listed with its backend, audited once, and
// signing for its party like any other key.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPkcs11Backend } from '../../../src/signing/index.ts';
import { apiHarness } from '../../support/api-harness.ts';
import { softhsmToken } from '../../support/softhsm.ts';

const token = softhsmToken('quill-adopt');
let h: Awaited<ReturnType<typeof apiHarness>>;
beforeAll(async () => {
  h = await apiHarness(
    {},
    {
      moreBackends: (dir) => [
        openPkcs11Backend({
          module: token.module,
          tokenLabel: token.tokenLabel,
          pin: token.pin,
          sessions: 2,
          dir,
        }),
      ],
    },
  );
});
afterAll(() => h.close());

it('adopts a token key by label, once in the audit chain, and it signs', async () => {
  execFileSync(
    'pkcs11-tool',
    [
      ...['--module', token.module, '--token-label', token.tokenLabel, '--login', '--pin', token.pin],
      ...['--keypairgen', '--key-type', 'EC:prime256v1', '--label', 'treasury', '--id', '01', '--usage-sign'],
    ],
    { env: { ...process.env, SOFTHSM2_CONF: token.conf }, stdio: 'ignore' },
  );
  const admin = await h.token('admin');
  const body = { backend: 'pkcs11', ref: 'label:treasury', label: 'treasury' };
  const adopted = await h.call('POST', '/wallet/v1/keys/adopt', { body, token: admin });
  expect(adopted.status).toBe(201);
  expect(adopted.json).toMatchObject({
    backend: 'pkcs11',
    algorithm: 'p256',
    label: 'treasury',
    status: 'active',
  });
  const again = await h.call('POST', '/wallet/v1/keys/adopt', { body, token: admin });
  expect(again.json.fingerprint).toBe(adopted.json.fingerprint);
  const entries = await h.wallet.audit.entries();
  const adoptions = entries.filter((e) => e.fields.some(([k, v]) => k === 'kind' && v === 'key.adopt'));
  expect(adoptions).toHaveLength(1);
  expect((await h.call('GET', '/wallet/v1/keys', { token: admin })).json.backends).toContainEqual(
    expect.objectContaining({ name: 'pkcs11', configured: true, adopt: true, generate: true }),
  );
  // A party on the adopted key submits, and the record names the key that signed.
  const fp = adopted.json.fingerprint as string;
  const party = (
    await h.call('POST', '/wallet/v1/parties', {
      body: { keyFingerprint: fp, partyHint: 'treasury' },
      token: admin,
    })
  ).json.partyId as string;
  const { prepared } = await import('../../support/api-harness.ts');
  const sent = await h.call('POST', '/wallet/v1/submissions', { body: prepared(party).body, token: admin });
  expect(sent.status).toBe(202);
  expect(sent.json.keyFingerprint).toBe(fp);
  const scoped = await h.call('POST', '/wallet/v1/keys/adopt', {
    body,
    token: await h.token('admin', party),
  });
  expect(scoped.status).toBe(403);
});
