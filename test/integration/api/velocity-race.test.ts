// Issue 29 F1: a velocity limit holds under concurrency. Six batches of six 100-coin transfers of one party, sent
// at once through four API instances on one Redis, against "at most 700 per hour": exactly 7 are accepted and the
// other 29 are denied (before the fix, every item of a batch read the same window and all passed).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX_RECOGNIZERS } from '@quill/sandbox';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createVerifier } from '../../../src/auth/index.ts';
import { startWallet } from '../../../src/server/wallet.ts';
import { Keyring, verifyingSigner } from '../../../src/signing/index.ts';
import { apiHarness, coinTransfer, unreachableLedger } from '../../support/api-harness.ts';
import { tempDir } from '../../support/tmp.ts';

let h: Awaited<ReturnType<typeof apiHarness>>;
const more: Awaited<ReturnType<typeof startWallet>>[] = [];

beforeAll(async () => {
  const policy = join(tempDir('quill-velocity-'), 'policy.yaml');
  writeFileSync(
    policy,
    [
      'rules:',
      '  - name: hourly',
      '    match:',
      '      instrument: { admin: "operator::1220op", id: QuillCoin }',
      '      velocity: { window: 1h, maxAmount: "700" }',
      '    action: deny',
      '',
    ].join('\n'),
  );
  h = await apiHarness({ POLICY_FILE: policy, BATCH_MAX: '10' }, { recognizers: SANDBOX_RECOGNIZERS });
  // Three more API instances on the same Redis, keys and parties: as more API processes would be.
  const keyring = new Keyring([h.keys]);
  for (let i = 0; i < 3; i++) {
    more.push(
      await startWallet({
        config: h.config,
        role: 'api',
        ledger: unreachableLedger,
        recognizers: SANDBOX_RECOGNIZERS,
        auth: createVerifier(h.config.auth),
        keys: keyring,
        signer: verifyingSigner(keyring),
        parties: { keyOf: async (p) => h.parties.get(p) },
      }),
    );
  }
});
afterAll(async () => {
  for (const w of more) await w.close();
  await h?.close();
});

it('six batches through four API instances at once stay within the limit', async () => {
  const alice = await h.party('alice');
  const token = await h.token('submit');
  const urls = [h.wallet.url, ...more.map((w) => w.url)] as string[];
  const results = await Promise.all(
    Array.from({ length: 6 }, async (_, b) => {
      const res = await fetch(`${urls[b % urls.length]}/wallet/v1/submissions/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          submissions: Array.from({ length: 6 }, () => coinTransfer(alice.id, 'bob::1', '100.0').body),
        }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { items: { status: number; error?: { code: string } }[] }).items;
    }),
  );
  const items = results.flat();
  expect(items.filter((i) => i.status === 202)).toHaveLength(7);
  expect(items.filter((i) => i.status === 422 && i.error?.code === 'POLICY_DENIED')).toHaveLength(29);
}, 60_000);
