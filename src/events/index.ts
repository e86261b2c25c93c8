// Public surface of src/events: what Quill tells others — the event log, the relay from the outbox, the live
// stream's reads and webhooks (the first event sink).

export { EventLogError, WebhookError } from './errors.ts';
export {
  compareIds,
  decodeEntry,
  EVENT_TYPES,
  type EventFilter,
  EventLog,
  type EventType,
  isEventId,
  isEventType,
  matches,
  OUTCOME_TYPES,
  type QuillEvent,
  type Retention,
} from './log.ts';
export { eventMetrics } from './metrics.ts';
export { type RelayOptions, relayStep, startRelay } from './relay.ts';
export { type SinkOptions, startSink } from './sink.ts';
export { type StreamCaps, StreamSlots } from './streams.ts';
export {
  type AttemptLog,
  Deliveries,
  type DeliveryConfig,
  type DeliveryState,
} from './webhooks/deliveries.ts';
export { dispatchStep } from './webhooks/dispatch.ts';
export { startDelivery } from './webhooks/drain.ts';
export { WEBHOOK_ID, type Webhook, WebhookRegistry } from './webhooks/registry.ts';
export { signature, signatureHeader, verifySignature } from './webhooks/sign.ts';
export {
  checkTarget,
  isLoopbackAddress,
  isPrivateAddress,
  type PrivateTargets,
  type Resolve,
  type ResolvedAddress,
  resolveTarget,
  systemResolve,
  type Target,
  type TargetProblem,
} from './webhooks/targets.ts';
