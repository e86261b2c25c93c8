// A small topology-transaction encoder for the tests, written apart from the sandbox's codec and from
// packages/canton (external-party-keys.md §1.3–1.4), so that the two must agree on the wire format.
import { createHash } from 'node:crypto';
import { type Alg, type Key, signWith } from './helpers.ts';

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n >>> 0;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}
const tag = (no: number, wire: number) => varint((no << 3) | wire);
const vField = (no: number, v: number) => (v === 0 ? [] : [...tag(no, 0), ...varint(v)]);
const bField = (no: number, b: Uint8Array | number[]) => [...tag(no, 2), ...varint(b.length), ...b];
const sField = (no: number, s: string) => bField(no, [...Buffer.from(s, 'utf8')]);

const SPEC = { ed25519: 1, p256: 2, p384: 3, secp256k1: 4 } as const;
export const NAMESPACE = 1;
export const PROTOCOL = 4;
export const PROOF_OF_OWNERSHIP = 5;

export function spkiOf(k: Key): Buffer {
  return k.publicKey.export({ format: 'der', type: 'spki' });
}

/** Purpose 12 over the raw Ed25519 key or the SPKI of EC keys. */
export function fingerprint(k: Key): string {
  const spki = spkiOf(k);
  const data = k.alg === 'ed25519' ? spki.subarray(12) : spki;
  return hash34(12, [data]).toString('hex');
}

function hash34(purpose: number, parts: Uint8Array[]): Buffer {
  const p = Buffer.alloc(4);
  p.writeInt32BE(purpose);
  const h = createHash('sha256').update(p);
  for (const x of parts) h.update(x);
  return Buffer.concat([Buffer.from([0x12, 0x20]), h.digest()]);
}

export function txHash(tx: Uint8Array): Buffer {
  return hash34(11, [tx]);
}

export function multiHash(txs: Uint8Array[]): Buffer {
  const hashes = [...new Set(txs.map((t) => txHash(t).toString('hex')))].sort();
  const n = Buffer.alloc(4);
  n.writeInt32BE(hashes.length);
  const parts: Uint8Array[] = [n];
  for (const h of hashes) {
    const l = Buffer.alloc(4);
    l.writeInt32BE(34);
    parts.push(l, Buffer.from(h, 'hex'));
  }
  return hash34(55, parts);
}

export interface KeySpec {
  key: Key;
  usage: number[];
}

function signingKey({ key, usage }: KeySpec): number[] {
  return [
    ...vField(2, 4),
    ...bField(3, spkiOf(key)),
    ...(usage.length ? bField(5, usage.flatMap(varint)) : []),
    ...vField(6, SPEC[key.alg]),
  ];
}

function wrap(mappingField: number, mapping: number[], serial: number, operation = 1): Uint8Array {
  const tx = [...vField(1, operation), ...vField(2, serial), ...bField(3, bField(mappingField, mapping))];
  return Uint8Array.from([...bField(1, tx), ...vField(2, 30)]);
}

export interface P2POptions {
  party: string;
  threshold: number;
  hosts: { uid: string; permission: 1 | 2 | 3 }[];
  keys?: KeySpec[];
  keyThreshold?: number;
  serial?: number;
  operation?: number;
}

export function p2p(o: P2POptions): Uint8Array {
  const body = [
    ...sField(1, o.party),
    ...vField(2, o.threshold),
    ...o.hosts.flatMap((h) => bField(3, [...sField(1, h.uid), ...vField(2, h.permission)])),
    ...(o.keys
      ? bField(6, [...o.keys.flatMap((k) => bField(1, signingKey(k))), ...vField(2, o.keyThreshold ?? 1)])
      : []),
  ];
  return wrap(9, body, o.serial ?? 1, o.operation);
}

/** A root delegation: namespace = the key's own fingerprint, can_sign_all_mappings. */
export function rootNsd(key: Key, serial = 1): Uint8Array {
  const body = [
    ...sField(1, fingerprint(key)),
    ...bField(2, signingKey({ key, usage: [NAMESPACE] })),
    ...bField(4, []),
  ];
  return wrap(1, body, serial);
}

export function b64(b: Uint8Array): string {
  return Buffer.from(b).toString('base64');
}

/** A JSON Signature of `k` over `message`. */
export function sig(k: Key, message: Uint8Array) {
  return signWith(k, message, fingerprint(k));
}

export type { Alg };

/** A decentralized namespace of `owners` (purpose 37 over the sorted owner strings, each length-prefixed). */
export function decentralizedNamespaceOf(owners: string[]): string {
  const parts: Uint8Array[] = [];
  for (const o of [...owners].sort()) {
    const b = Buffer.from(o, 'utf8');
    const l = Buffer.alloc(4);
    l.writeInt32BE(b.length);
    parts.push(l, b);
  }
  return hash34(37, parts).toString('hex');
}

export function dnd(owners: string[], threshold: number, serial = 1): Uint8Array {
  const body = [
    ...sField(1, decentralizedNamespaceOf(owners)),
    ...vField(2, threshold),
    ...owners.flatMap((o) => sField(3, o)),
  ];
  return wrap(3, body, serial);
}
