// Parties with M-of-N signing sets for tests: Quill file keys generated through the key store, and external keys
// whose private half only the test holds (node:crypto), written as PartyRecords through the PartyRegistry.
import { generateKeyPairSync, type KeyObject, sign as nodeSign, randomBytes } from 'node:crypto';
import type { PartyRecord, PartyRegistry, SigningKeyEntry } from '../../src/parties/index.ts';
import { fingerprintOf, type KeyView } from '../../src/signing/index.ts';
import { SYNC } from './api-harness.ts';

export interface ExternalKey {
  entry: SigningKeyEntry;
  /** A signature as a holder posts it, over the 32-byte hash. `highS`: the ECDSA S left high (P-256 only). */
  sign(hash: Uint8Array): {
    format: string;
    signature: string;
    signedBy: string;
    signingAlgorithmSpec: string;
  };
}

export function externalKey(kind: 'ed25519' | 'p256' = 'ed25519', label = 'hardware wallet'): ExternalKey {
  const pair =
    kind === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = pair.publicKey.export({ type: 'spki', format: 'der' });
  const fingerprint = fingerprintOf(kind, spki);
  const privateKey: KeyObject = pair.privateKey;
  return {
    entry: {
      fingerprint,
      holder: 'external',
      publicKey: spki.toString('base64'),
      keySpec: kind === 'ed25519' ? 'SIGNING_KEY_SPEC_EC_CURVE25519' : 'SIGNING_KEY_SPEC_EC_P256',
      label,
    },
    sign(hash) {
      const bytes =
        kind === 'ed25519'
          ? nodeSign(null, hash, privateKey)
          : nodeSign('sha256', hash, { key: privateKey, dsaEncoding: 'der' });
      return {
        format: kind === 'ed25519' ? 'SIGNATURE_FORMAT_CONCAT' : 'SIGNATURE_FORMAT_DER',
        signature: bytes.toString('base64'),
        signedBy: fingerprint,
        signingAlgorithmSpec:
          kind === 'ed25519' ? 'SIGNING_ALGORITHM_SPEC_ED25519' : 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
      };
    },
  };
}

export function quillEntry(k: KeyView, label: string | null = null): SigningKeyEntry {
  return { fingerprint: k.fingerprint, holder: 'quill', publicKey: k.publicKey, keySpec: k.keySpec, label };
}

/**
 * A party whose namespace key (a Quill key, `separate` layout: it never signs transactions) is not in its set:
 * `quill` Quill keys generated in `keys`, then the `external` keys, at `threshold`.
 */
export async function multiSigParty(
  registry: PartyRegistry,
  keys: { generate(algorithm: 'ed25519' | 'p256'): Promise<KeyView> },
  opts: { quill: number; external: ExternalKey[]; threshold: number; hint?: string },
) {
  const ns = await keys.generate('ed25519');
  const quill: KeyView[] = [];
  for (let i = 0; i < opts.quill; i++) quill.push(await keys.generate(i % 2 === 0 ? 'ed25519' : 'p256'));
  const record: PartyRecord = {
    partyId: `${opts.hint ?? 'multi'}-${randomBytes(3).toString('hex')}::${ns.fingerprint}`,
    keyFingerprint: ns.fingerprint,
    synchronizerId: SYNC,
    createdAt: new Date().toISOString(),
    layout: 'separate',
    signing: {
      threshold: opts.threshold,
      keys: [...quill.map((k, i) => quillEntry(k, `quill-${i + 1}`)), ...opts.external.map((e) => e.entry)],
    },
    serial: 1,
  };
  await registry.add(record);
  return { partyId: record.partyId, namespace: ns, quill, record };
}
