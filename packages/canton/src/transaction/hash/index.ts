// Public hashing entry points: the 32-byte hash an external party signs, plus the intermediate hashes.

import { fail } from '../errors.ts';
import type { HashingSchemeVersion, PreparedTransaction } from '../types.ts';
import { validatePreparedTransaction } from '../validate.ts';
import type { Scheme } from './nodes.ts';
import { sha256 } from './sha256.ts';
import { finalPreimage, metadataPreimage, nodeHashes, transactionPreimage } from './transaction.ts';
import { ByteWriter } from './writer.ts';

export type { Scheme } from './nodes.ts';
export { writeValue } from './value.ts';
export { ByteWriter } from './writer.ts';

// Hashing is synchronous, so one shared buffer serves every call.
const shared = new ByteWriter(1 << 16);

/** Maps a wire scheme name to its version number; anything else is refused. */
export function schemeNumber(scheme: unknown): Scheme {
  if (scheme === 'HASHING_SCHEME_VERSION_V2') return 2;
  if (scheme === 'HASHING_SCHEME_VERSION_V3') return 3;
  const shown = typeof scheme === 'string' ? scheme.slice(0, 40) : typeof scheme;
  return fail(
    'UNKNOWN_HASHING_SCHEME',
    `unsupported hashing scheme ${shown}: use HASHING_SCHEME_VERSION_V2 or HASHING_SCHEME_VERSION_V3`,
  );
}

export interface HashDetails {
  readonly scheme: HashingSchemeVersion;
  /** The signed hash: sha256(purpose || version || transactionHash || metadataHash). */
  readonly hash: Uint8Array;
  readonly transactionHash: Uint8Array;
  readonly metadataHash: Uint8Array;
  readonly nodeHashes: ReadonlyMap<string, Uint8Array>;
}

/** Validates and hashes; throws `TransactionError` for anything the scheme cannot hash. */
export function hashDetails(tx: PreparedTransaction, scheme: HashingSchemeVersion): HashDetails {
  const v = schemeNumber(scheme);
  const index = validatePreparedTransaction(tx);
  const w = shared;
  const transactionHash = sha256(transactionPreimage(tx, index, v, w));
  const metadataHash = sha256(metadataPreimage(tx.metadata!, v, w));
  const hash = sha256(finalPreimage(transactionHash, metadataHash, v));
  return { scheme, hash, transactionHash, metadataHash, nodeHashes: nodeHashes(index, v, w) };
}

/** The raw 32-byte hash the external party signs (what `preparedTransactionHash` base64-encodes). */
export function hashPreparedTransaction(tx: PreparedTransaction, scheme: HashingSchemeVersion): Uint8Array {
  const v = schemeNumber(scheme);
  const index = validatePreparedTransaction(tx);
  const transactionHash = sha256(transactionPreimage(tx, index, v, shared));
  const metadataHash = sha256(metadataPreimage(tx.metadata!, v, shared));
  return sha256(finalPreimage(transactionHash, metadataHash, v));
}
