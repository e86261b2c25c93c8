// What the wallet learns from a prepared transaction: at accept, strict decode, recomputed hash and the metadata
// the checks need; for a stored one, its preview. And a request body, parsed. Each function runs inline (small
// inputs) and on the inspection pool (large ones): reader.ts decides which, in one place.

import {
  decodePreparedTransactionBase64,
  hashPreparedTransaction,
  previewPreparedTransaction,
  TransactionError,
} from '@quill/canton/transaction';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../../json.ts';
import {
  assetMovements,
  describeMovements,
  type HoldingRecognizer,
  nodeTree,
  transactionFacts,
} from '../../policy/index.ts';
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

/** A stored transaction's preview: its recomputed hash (hex), and the rest already serialized. */
export interface StoredPreview {
  hash: string;
  /** JSON of `{ summary, tree, movements, preview }`: serialized where it was computed, not on the request thread. */
  json: string;
}

/** One sentence per asset movement, the node tree, the movements and the decoded transaction of a stored one. */
export function previewStored(
  b64: string,
  scheme: HashingSchemeVersion,
  holdings: readonly HoldingRecognizer[],
): StoredPreview {
  const preview = previewPreparedTransaction(decodePreparedTransactionBase64(b64), scheme);
  const movements = assetMovements(preview, holdings);
  return {
    hash: preview.hash,
    json: JSON.stringify({
      summary: describeMovements(movements),
      tree: nodeTree(preview),
      movements,
      preview,
    }),
  };
}

/** A request body as the wallet reads one: UTF-8, nested at most `maxDepth` deep, then JSON (or not). */
export type ParsedBody = { value: unknown } | { tooDeep: true } | { malformed: true };

export function parseBody(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): ParsedBody {
  const text = new TextDecoder().decode(bytes);
  if (jsonTooDeep(text, maxDepth)) return { tooDeep: true };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { malformed: true };
  }
}
