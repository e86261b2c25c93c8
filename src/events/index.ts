// Public surface of src/events.
// events, stream and webhooks (part B)

// watcher and history (part A)
export {
  type GapEvent,
  HistoryError,
  type HistoryErrorCode,
  HistoryIndex,
  type IndexedTransaction,
  type IngestBatch,
} from './index-store.ts';
export {
  compareIds,
  decodeEntry,
  EVENT_TYPES,
  type EventFilter,
  EventLog,
  EventLogError,
  type EventType,
  isEventId,
  isEventType,
  matches,
  type QuillEvent,
  type Retention,
} from './log.ts';
export { RELAY, type RelayOptions, relayStep, startRelay } from './relay.ts';
export { concerned, LedgerWatcher, type WatcherLedger, type WatcherOptions } from './watcher.ts';
export {
  type AttemptLog,
  Deliveries,
  type DeliveryConfig,
  type DeliveryRunner,
  type DeliveryState,
  startDelivery,
} from './webhooks/delivery.ts';
export { WEBHOOK_ID, type Webhook, WebhookError, WebhookRegistry } from './webhooks/registry.ts';
export { signature, signatureHeader, verifySignature } from './webhooks/sign.ts';
export { checkTarget, isPrivateAddress, type TargetProblem } from './webhooks/targets.ts';
