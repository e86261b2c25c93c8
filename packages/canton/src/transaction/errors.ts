// The one error type of this folder: a stable code plus a one-line message (never a stack or a secret).
import { QuillError } from '../errors.ts';

export type TransactionErrorCode =
  | 'BAD_BASE64'
  | 'MALFORMED_PROTOBUF'
  | 'UNKNOWN_FIELD'
  | 'NON_CANONICAL_ENCODING'
  | 'MISSING_TRANSACTION'
  | 'MISSING_METADATA'
  | 'MISSING_FIELD'
  | 'UNKNOWN_NODE_TYPE'
  | 'INVALID_NODE_ID'
  | 'DUPLICATE_NODE_ID'
  | 'MISSING_NODE'
  | 'INVALID_TREE'
  | 'MISSING_NODE_SEED'
  | 'INVALID_SEED'
  | 'INVALID_CONTRACT_ID'
  | 'INVALID_PARTY'
  | 'INVALID_IDENTIFIER'
  | 'INVALID_VALUE'
  | 'INVALID_TIME'
  | 'INVALID_METADATA'
  | 'UNSUPPORTED_LF_VERSION'
  | 'UNSUPPORTED_BY_SCHEME'
  | 'UNKNOWN_HASHING_SCHEME'
  | 'INVALID_INPUT';

export class TransactionError extends QuillError<TransactionErrorCode> {
  override readonly name = 'TransactionError';

  constructor(code: TransactionErrorCode, message: string) {
    // One line, bounded: messages may quote untrusted input.
    super(code, oneLine(message));
  }
}

function oneLine(s: string): string {
  const flat = s.replace(/[\r\n\t]+/g, ' ');
  return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
}

export function fail(code: TransactionErrorCode, message: string): never {
  throw new TransactionError(code, message);
}
