// Minimal DER building for the fixed key structures we need (SPKI, PKCS#8): every length here is < 128.
import type { KeyAlgorithm } from './key-algorithm.ts';

const OID_ED25519 = '06032b6570';
const OID_EC_PUBLIC_KEY = '06072a8648ce3d0201';
const CURVE_OIDS: Record<Exclude<KeyAlgorithm, 'ed25519'>, string> = {
  p256: '06082a8648ce3d030107',
  p384: '06052b81040022',
  secp256k1: '06052b8104000a',
};

function tlv(tag: number, ...parts: Uint8Array[]): Uint8Array {
  const length = parts.reduce((n, p) => n + p.length, 0);
  if (length > 127) throw new Error('DER length over 127 is not needed here');
  const out = new Uint8Array(2 + length);
  out[0] = tag;
  out[1] = length;
  let at = 2;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
const SEQUENCE = 0x30;
const BIT_STRING = 0x03;
const OCTET_STRING = 0x04;

function algorithmIdentifier(algorithm: KeyAlgorithm): Uint8Array {
  return algorithm === 'ed25519'
    ? tlv(SEQUENCE, hex(OID_ED25519))
    : tlv(SEQUENCE, hex(OID_EC_PUBLIC_KEY), hex(CURVE_OIDS[algorithm]));
}

/** X.509 SubjectPublicKeyInfo: raw 32-byte Ed25519 key, or an uncompressed EC point (0x04 || x || y). */
export function spkiFromRaw(algorithm: KeyAlgorithm, rawPublicKey: Uint8Array): Uint8Array {
  const bits = new Uint8Array(1 + rawPublicKey.length); // leading 0: no unused bits
  bits.set(rawPublicKey, 1);
  return tlv(SEQUENCE, algorithmIdentifier(algorithm), tlv(BIT_STRING, bits));
}

/** The raw public key inside an SPKI of the given algorithm, or undefined if the bytes are anything else. */
export function rawFromSpki(
  algorithm: KeyAlgorithm,
  spki: Uint8Array,
  rawLength: number,
): Uint8Array | undefined {
  const prefix = spkiFromRaw(algorithm, new Uint8Array(rawLength)).subarray(0, -rawLength);
  if (spki.length !== prefix.length + rawLength) return undefined;
  for (let i = 0; i < prefix.length; i++) if (spki[i] !== prefix[i]) return undefined;
  return spki.slice(prefix.length);
}

/**
 * PKCS#8 holding only the private scalar/seed (no public key), so that OpenSSL derives the public key
 * itself: comparing it with noble's derivation is an independent check of the key material.
 */
export function pkcs8FromSecret(algorithm: KeyAlgorithm, secret: Uint8Array): Uint8Array {
  const version0 = hex('020100');
  if (algorithm === 'ed25519') {
    return tlv(
      SEQUENCE,
      version0,
      algorithmIdentifier(algorithm),
      tlv(OCTET_STRING, tlv(OCTET_STRING, secret)),
    );
  }
  const ecPrivateKey = tlv(SEQUENCE, hex('020101'), tlv(OCTET_STRING, secret));
  return tlv(SEQUENCE, version0, algorithmIdentifier(algorithm), tlv(OCTET_STRING, ecPrivateKey));
}

/** The DER OID a PKCS#11 token takes as CKA_EC_PARAMS for the algorithm's curve. */
export function curveOidDer(algorithm: KeyAlgorithm): Uint8Array {
  return hex(algorithm === 'ed25519' ? OID_ED25519 : CURVE_OIDS[algorithm]);
}

/**
 * The raw public key in a token's CKA_EC_POINT: a DER OCTET STRING around the point (the standard), or the bare
 * point (some tokens). Undefined when it is neither.
 */
export function pointFromEcPoint(value: Uint8Array, rawLength: number): Uint8Array | undefined {
  if (value.length === rawLength + 2 && value[0] === OCTET_STRING && value[1] === rawLength)
    return value.slice(2);
  if (value.length === rawLength) return Uint8Array.from(value);
  return undefined;
}
