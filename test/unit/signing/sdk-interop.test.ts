// Ed25519 against the Canton wallet SDK (@canton-network/wallet-sdk, tweetnacl inside): same fingerprint
// for the same key, and our signatures verify with its verifier.
import { randomBytes } from 'node:crypto';
import { verifySignedTxHash } from '@canton-network/core-signing-lib';
import { describe, expect, it } from 'vitest';
import { verifyingSigner } from '../../../src/signing/index.ts';
import { tempStore } from '../../support/keys.ts';

describe('wallet SDK interop (Ed25519)', () => {
  it('fingerprints and signatures agree with the SDK', async () => {
    const { OfflineInitializedSDK: Sdk } = await import('@canton-network/wallet-sdk');
    const sdk = new Sdk({ logger: console, error: { throw: () => undefined } } as never);
    const store = await tempStore();
    const signer = verifyingSigner(store);
    for (let i = 0; i < 5; i++) {
      const view = await store.generate('ed25519');
      const raw = Buffer.from(view.publicKey, 'base64').subarray(12).toString('base64'); // SPKI minus its 12-byte header
      expect(await sdk.keys.fingerprint(raw)).toBe(view.fingerprint);
      const hash = randomBytes(32).toString('base64');
      const sig = await signer.sign(view.fingerprint, Buffer.from(hash, 'base64'));
      expect(verifySignedTxHash(hash, raw, sig.signature)).toBe(true);
      expect(verifySignedTxHash(randomBytes(32).toString('base64'), raw, sig.signature)).toBe(false);
    }
  });
});
