// The four real prepared transactions captured from participants hash to their recorded hashes, and
// decode → encode reproduces their bytes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  decodePreparedTransactionBase64,
  encodePreparedTransactionBase64,
  type HashingSchemeVersion,
  hashPreparedTransaction,
  previewPreparedTransaction,
} from '../../src/transaction/index.ts';

interface Captured {
  name: string;
  hashingSchemeVersion: HashingSchemeVersion;
  preparedTransactionBase64: string;
  expectedHashHex: string;
  expectedHashBase64: string;
}

const captured: Captured[] = JSON.parse(
  readFileSync(new URL('../fixtures/vectors/participant-captured.json', import.meta.url), 'utf8'),
);

describe('participant-captured prepared transactions', () => {
  it('has the four transactions', () => expect(captured).toHaveLength(4));
  for (const c of captured) {
    it(`${c.name} hashes to the recorded hash`, () => {
      const tx = decodePreparedTransactionBase64(c.preparedTransactionBase64);
      const hash = hashPreparedTransaction(tx, c.hashingSchemeVersion);
      expect(Buffer.from(hash).toString('hex')).toBe(c.expectedHashHex);
      expect(Buffer.from(hash).toString('base64')).toBe(c.expectedHashBase64);
      expect(encodePreparedTransactionBase64(tx)).toBe(c.preparedTransactionBase64);
    });
    it(`${c.name} previews with the same hash and its parties`, () => {
      const tx = decodePreparedTransactionBase64(c.preparedTransactionBase64);
      const p = previewPreparedTransaction(tx, c.hashingSchemeVersion);
      expect(p.hash).toBe(c.expectedHashHex);
      expect(p.nodes.length).toBeGreaterThan(0);
      expect(p.parties).toEqual(expect.arrayContaining(p.actAs));
      expect(JSON.parse(JSON.stringify(p))).toEqual(p);
    });
  }
  it('a V3 hash of the same transaction differs from the V2 hash', () => {
    const c = captured[0]!;
    const tx = decodePreparedTransactionBase64(c.preparedTransactionBase64);
    const v3 = Buffer.from(hashPreparedTransaction(tx, 'HASHING_SCHEME_VERSION_V3')).toString('hex');
    expect(v3).not.toBe(c.expectedHashHex);
  });
});
