// End to end with keys in a PKCS#11 token (SoftHSM2): an HSM key per algorithm is generated through the API,
// onboards a party on the sandbox (the topology signature comes from the token), and that party's coin transfers
// commit with hashing schemes V2 and V3. The official wallet SDK's verifier accepts an HSM Ed25519 signature.
import { randomBytes } from 'node:crypto';
import { verifySignedTxHash } from '@canton-network/core-signing-lib';
import { mint, type Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KEY_ALGORITHMS, openPkcs11Backend } from '../../../src/signing/index.ts';
import { softhsmToken } from '../../support/softhsm.ts';
import {
  coinTemplate,
  prepareOn,
  type Scheme,
  startFullWallet,
  startLedger,
  walletConfig,
} from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startFullWallet>>;
const token = softhsmToken('quill-e2e-hsm');

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startFullWallet(sandbox, walletConfig(inject('redisUrl')), 'all', undefined, (dir) => [
    openPkcs11Backend({
      module: token.module,
      tokenLabel: token.tokenLabel,
      pin: token.pin,
      sessions: 4,
      dir,
    }),
  ]);
});
afterAll(async () => {
  await w.wallet.close();
  await w.keys.close();
  await sandbox.close();
});

describe('HSM keys through Quill', () => {
  it.each(KEY_ALGORITHMS)(
    '%s: generated in the token, onboards, transfers commit with V2 and V3',
    async (algorithm) => {
      const key = await w.call('POST', '/wallet/v1/keys', {
        algorithm,
        backend: 'pkcs11',
        label: `hsm ${algorithm}`,
      });
      expect(key.status).toBe(201);
      expect(key.json).toMatchObject({ algorithm, backend: 'pkcs11', status: 'active' });
      const onboarded = await w.call('POST', '/wallet/v1/parties', {
        keyFingerprint: key.json.fingerprint,
        partyHint: `hsm-${algorithm}`,
      });
      expect(onboarded.status).toBe(201);
      const party = onboarded.json.partyId as string;
      const bob = sandbox.state.allocateLocalParty(`bob-${algorithm}`).partyId;
      for (const scheme of ['HASHING_SCHEME_VERSION_V2', 'HASHING_SCHEME_VERSION_V3'] as Scheme[]) {
        const minted = mint(sandbox.state, party, '10.0000000000');
        const holding = minted.nodes.find(
          (n) => n.kind === 'create' && n.contract.templateId.endsWith(':Holding'),
        );
        const transfer = await prepareOn(
          w.client,
          party,
          {
            ExerciseCommand: {
              templateId: coinTemplate('Holding'),
              contractId: holding?.kind === 'create' ? holding.contract.contractId : '',
              choice: 'Holding_Transfer',
              choiceArgument: { receiver: bob, amount: '4.0000000000' },
            },
          },
          scheme,
        );
        const sent = await w.call('POST', '/wallet/v1/submissions?wait=20', transfer);
        expect(sent.json).toMatchObject({ status: 'committed', party, keyFingerprint: key.json.fingerprint });
        const byUpdate = await w.call(
          'GET',
          `/wallet/v1/updates/${encodeURIComponent(String(sent.json.updateId))}`,
        );
        expect(byUpdate.status).toBe(200);
      }
      const listed = await w.call('GET', '/wallet/v1/keys');
      expect(
        (listed.json.items as { fingerprint: string; backend: string }[]).find(
          (k) => k.fingerprint === key.json.fingerprint,
        )?.backend,
      ).toBe('pkcs11');
    },
  );

  it("the wallet SDK's verifier accepts an HSM Ed25519 signature", async () => {
    const view = await w.keys.generate('ed25519', 'sdk', 'pkcs11');
    const hash = randomBytes(32);
    const { verifyingSigner } = await import('../../../src/signing/index.ts');
    const sig = await verifyingSigner(w.keys).sign(view.fingerprint, hash);
    const raw = Buffer.from(view.publicKey, 'base64').subarray(12).toString('base64');
    expect(verifySignedTxHash(hash.toString('base64'), raw, sig.signature)).toBe(true);
    expect(verifySignedTxHash(randomBytes(32).toString('base64'), raw, sig.signature)).toBe(false);
  });

  it('an unknown backend is a 400', async () => {
    const bad = await w.call('POST', '/wallet/v1/keys', { algorithm: 'p256', backend: 'vault' });
    expect(bad.status).toBe(400);
    expect(bad.json.error?.code).toBe('INVALID_REQUEST');
  });
});
