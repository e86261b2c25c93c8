// watcher and history (part A)
export {
  type GapEvent,
  HistoryError,
  type HistoryErrorCode,
  HistoryIndex,
  type IndexedTransaction,
  type IngestBatch,
} from './index-store.ts';
export { concerned, LedgerWatcher, type WatcherLedger, type WatcherOptions } from './watcher.ts';
