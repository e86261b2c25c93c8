// Public surface of src/history: what Quill learns from the ledger — the watcher and the party history index it
// writes (transactions by party, update id and hash; active contracts).
export { HistoryError, type HistoryErrorCode } from './errors.ts';
export {
  type GapEvent,
  HistoryIndex,
  type IndexedTransaction,
  type IngestBatch,
} from './index-store.ts';
export { watcherMetrics } from './metrics.ts';
export { pruneHistory } from './retention.ts';
export { type IndexedHolding, type IndexedInstruction, isLocked } from './tokens.ts';
export { concerned, LedgerWatcher, type WatcherLedger, type WatcherOptions } from './watcher.ts';
