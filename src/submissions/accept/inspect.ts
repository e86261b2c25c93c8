// What the accept path learns from a prepared transaction: strict decode, recomputed hash, the metadata the
// checks need. The same function runs inline (small transactions) and in the worker pool (large ones).

import {
  decodePreparedTransactionBase64,
  hashPreparedTransaction,
  previewPreparedTransaction,
  TransactionError,
} from '@quill/canton/transaction';
import { type HoldingRecognizer, transactionFacts } from '../../policy/index.ts';
import type { HashingSchemeVersion } from '../record.ts';
import type { InspectedTransaction } from './types.ts';

/** `holdings`: how the policy's facts value holdings (the composition root's recognizer table). */
export function inspectPrepared(
  b64: string,
  scheme: HashingSchemeVersion,
  holdings: readonly HoldingRecognizer[],
): InspectedTransaction {
  const tx = decodePreparedTransactionBase64(b64);
  const meta = tx.metadata;
  if (!meta?.submitterInfo) {
    throw new TransactionError('MISSING_METADATA', 'the prepared transaction has no submitter metadata');
  }
  const hash = hashPreparedTransaction(tx, scheme);
  return {
    hash,
    actAs: [...meta.submitterInfo.actAs],
    commandId: meta.submitterInfo.commandId,
    synchronizerId: meta.synchronizerId,
    ...(meta.maxRecordTime !== undefined
      ? { maxRecordTime: new Date(Number(meta.maxRecordTime / 1000n)) }
      : {}),
    preparationTime: new Date(Number(meta.preparationTime / 1000n)),
    // What the approval policy reads, computed only when a policy asks (it walks every node).
    facts: () => transactionFacts(previewPreparedTransaction(tx, scheme), holdings),
  };
}
