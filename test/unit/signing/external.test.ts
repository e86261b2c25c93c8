// External signers' keys: a signature their holder posts counts only if it is that key's, over that message,
// in the algorithm and format of the key's spec; ECDSA comes back in the low-S form Quill sends. Garbage is a
// one-line refusal, never an exception or an echo of the signature.
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { externalKey, fingerprintOf } from '../../../src/signing/index.ts';

const message = new Uint8Array(32).fill(7);

function pair(kind: 'ed25519' | 'prime256v1' | 'secp256k1') {
  const { publicKey, privateKey } =
    kind === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: kind });
  return { spki: publicKey.export({ format: 'der', type: 'spki' }), privateKey };
}

const SPEC = {
  ed25519: ['SIGNING_KEY_SPEC_EC_CURVE25519', 'SIGNING_ALGORITHM_SPEC_ED25519', 'SIGNATURE_FORMAT_CONCAT'],
  prime256v1: ['SIGNING_KEY_SPEC_EC_P256', 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256', 'SIGNATURE_FORMAT_DER'],
  secp256k1: [
    'SIGNING_KEY_SPEC_EC_SECP256K1',
    'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
    'SIGNATURE_FORMAT_DER',
  ],
} as const;

function signed(kind: keyof typeof SPEC, privateKey: KeyObject, fp: string, msg = message) {
  const [, algorithm, format] = SPEC[kind];
  return {
    format,
    signature: sign(kind === 'ed25519' ? null : 'sha256', msg, privateKey).toString('base64'),
    signedBy: fp,
    signingAlgorithmSpec: algorithm,
  } as const;
}

describe('externalKey', () => {
  it.each(Object.keys(SPEC) as (keyof typeof SPEC)[])('%s: counts its own signature only', (kind) => {
    const { spki, privateKey } = pair(kind);
    const key = externalKey(spki.toString('base64'), SPEC[kind][0]);
    expect(key.fingerprint).toBe(fingerprintOf(key.algorithm, new Uint8Array(spki)));
    for (let i = 0; i < 8; i++) {
      // ECDSA from node:crypto has either S: both are accepted, and what comes back is low-S and still verifies.
      const ok = key.check(signed(kind, privateKey, key.fingerprint), message);
      expect('signature' in ok).toBe(true);
    }
    const other = pair(kind);
    expect(key.check(signed(kind, other.privateKey, key.fingerprint), message)).toEqual({
      problem: 'the signature does not verify',
    });
    expect(key.check(signed(kind, privateKey, key.fingerprint, new Uint8Array(32)), message)).toEqual({
      problem: 'the signature does not verify',
    });
    expect('problem' in key.check(signed(kind, privateKey, `1220${'0'.repeat(64)}`), message)).toBe(true);
    const wrongSpec = {
      ...signed(kind, privateKey, key.fingerprint),
      signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384',
    } as const;
    expect(key.check(wrongSpec, message)).toMatchObject({ problem: expect.stringContaining('signs with') });
  });

  it('refuses a key that is not its declared spec, without echoing it', () => {
    const { spki } = pair('prime256v1');
    expect(() => externalKey(spki.toString('base64'), 'SIGNING_KEY_SPEC_EC_CURVE25519')).toThrow(
      /not a SIGNING_KEY_SPEC_EC_CURVE25519 DER SubjectPublicKeyInfo/,
    );
    expect(() => externalKey('not base64!', 'SIGNING_KEY_SPEC_EC_P256')).toThrow(/standard base64/);
    expect(() => externalKey(spki.toString('base64'), 'RSA')).toThrow(/unsupported key spec/);
  });

  test.prop([fc.string({ maxLength: 200 }), fc.string({ maxLength: 40 })])(
    'garbage keys throw one line; garbage signatures are refused, never echoed',
    (text, spec) => {
      try {
        externalKey(text, spec);
      } catch (err) {
        expect((err as Error).message).not.toContain('\n');
      }
      const { spki } = pair('ed25519');
      const key = externalKey(spki.toString('base64'), 'SIGNING_KEY_SPEC_EC_CURVE25519');
      const res = key.check(
        {
          format: 'SIGNATURE_FORMAT_CONCAT',
          signature: text,
          signedBy: key.fingerprint,
          signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
        },
        message,
      );
      expect(res).toHaveProperty('problem');
      if (text.length > 8) expect((res as { problem: string }).problem).not.toContain(text);
    },
  );
});
