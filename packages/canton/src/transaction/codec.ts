// Strict decoding and encoding of the base64 / binary PreparedTransaction: unknown fields refused, the
// input must be the canonical encoding of what was decoded (re-encoding reproduces it byte for byte),
// and the decoded transaction must be structurally valid. Canonical input (all a participant produces) is
// read in one pass by `decodeCanonical`; anything it is not sure of takes the protobuf-ts path, which
// decides whether and how to refuse it.
import { isStandardBase64 } from '../ledger/schemas/common.ts';
import { decodeCanonical } from './canonical-reader.ts';
import { TransactionError } from './errors.ts';
import { PreparedTransaction } from './types.ts';
import { validatePreparedTransaction } from './validate.ts';
import { FastBinaryReader } from './wire-reader.ts';
import { FastBinaryWriter } from './wire-writer.ts';

const READ = {
  readUnknownField: 'throw' as const,
  readerFactory: (b: Uint8Array) => new FastBinaryReader(b),
};
const WRITE = { writeUnknownFields: false, writerFactory: () => new FastBinaryWriter() };
// Decoding is synchronous, so one writer (and its grown buffer) serves every canonical-form check.
const canonical = new FastBinaryWriter();

/** Decodes the protobuf bytes of a PreparedTransaction; throws `TransactionError` on any defect. */
export function decodePreparedTransaction(bytes: Uint8Array): PreparedTransaction {
  if (!(bytes instanceof Uint8Array)) throw new TransactionError('INVALID_INPUT', 'expected protobuf bytes');
  const canonicalTx = decodeCanonical(bytes);
  if (canonicalTx !== undefined) {
    validatePreparedTransaction(canonicalTx);
    return canonicalTx;
  }
  return decodeStrict(bytes);
}

/**
 * The reference decoder: protobuf-ts (unknown fields refused), then the canonical-form check by
 * re-encoding and comparing, then validation. Exported for the differential tests.
 */
export function decodeStrict(bytes: Uint8Array): PreparedTransaction {
  let tx: PreparedTransaction;
  try {
    tx = PreparedTransaction.fromBinary(bytes, READ);
  } catch (err) {
    throw protobufError(err);
  }
  const w = canonical.reset();
  PreparedTransaction.internalBinaryWrite(tx, w, WRITE);
  if (!w.equals(bytes)) {
    throw new TransactionError(
      'NON_CANONICAL_ENCODING',
      'protobuf is not in canonical form (re-encoding does not reproduce it: repeated, default-valued or out-of-order fields)',
    );
  }
  validatePreparedTransaction(tx);
  return tx;
}

/** Decodes the base64 text `prepare` returns (standard alphabet, padded; surrounding whitespace ignored). */
export function decodePreparedTransactionBase64(text: string): PreparedTransaction {
  if (typeof text !== 'string')
    throw new TransactionError('BAD_BASE64', 'prepared transaction must be a base64 string');
  const s = text.trim();
  if (s.length === 0) throw new TransactionError('BAD_BASE64', 'prepared transaction is empty');
  const bytes = standardBase64Bytes(s);
  if (bytes === undefined)
    throw new TransactionError('BAD_BASE64', 'prepared transaction is not valid base64');
  return decodePreparedTransaction(bytes);
}

/**
 * The bytes of `s` if it is standard padded base64, by the rule of `isStandardBase64` (the last four characters are
 * checked by it), decoding it only once and scanning it with searches rather than a per-character loop or
 * expression. That rule holds for the rest exactly when every character is in the standard alphabet. Node's decoder
 * skips any other ASCII character, so fewer bytes come out; it stops at `=`, with fewer bytes too; it reads `-` and
 * `_` as the URL alphabet, searched for apart; and it would read a character above U+00FF as its low byte, so
 * anything but ASCII is refused first (its UTF-8 length is then its length).
 */
function standardBase64Bytes(s: string): Buffer | undefined {
  const n = s.length;
  if (n % 4 !== 0 || n <= 4) return isStandardBase64(s) ? Buffer.from(s, 'base64') : undefined;
  const tail = s.slice(n - 4);
  if (!isStandardBase64(tail)) return undefined;
  if (Buffer.byteLength(s, 'utf8') !== n || s.indexOf('-') >= 0 || s.indexOf('_') >= 0) return undefined;
  const bytes = Buffer.from(s, 'base64');
  const padding = tail.endsWith('==') ? 2 : tail.endsWith('=') ? 1 : 0;
  return bytes.length === (n / 4) * 3 - padding ? bytes : undefined;
}

export function encodePreparedTransaction(tx: PreparedTransaction): Uint8Array {
  return PreparedTransaction.toBinary(tx, WRITE);
}

export function encodePreparedTransactionBase64(tx: PreparedTransaction): string {
  return Buffer.from(encodePreparedTransaction(tx)).toString('base64');
}

function protobufError(err: unknown): TransactionError {
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    return new TransactionError('MALFORMED_PROTOBUF', 'protobuf nests too deeply');
  }
  const msg = err instanceof Error ? err.message : String(err);
  const unknown = /^Unknown field (\d+) \(wire type (\d+)\) for (\S+)/.exec(msg);
  if (unknown !== null) {
    const [, no, , type] = unknown;
    const typeName = type ?? '';
    if (
      typeName.endsWith('transaction.v1.Node') ||
      (typeName.endsWith('DamlTransaction.Node') && Number(no) >= 1000)
    ) {
      return new TransactionError(
        'UNKNOWN_NODE_TYPE',
        `unknown node type (field ${no} of ${shortName(typeName)})`,
      );
    }
    return new TransactionError('UNKNOWN_FIELD', `unknown field ${no} in ${shortName(typeName)}`);
  }
  if (/utf-?8|encoded data/i.test(msg))
    return new TransactionError('MALFORMED_PROTOBUF', 'protobuf string is not valid UTF-8');
  return new TransactionError('MALFORMED_PROTOBUF', `truncated or invalid protobuf (${msg.slice(0, 80)})`);
}

function shortName(typeName: string): string {
  return typeName.replace(/^com\.daml\.ledger\.api\.v2\./, '');
}
