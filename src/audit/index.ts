// Public surface of src/audit: the tamper-evident chain (entry format, verification), its Redis stream, and its
// signed checkpoints kept outside Redis.
export {
  auditCanonical,
  auditFields,
  auditHash,
  type ChainEntry,
  type ChainVerdict,
  GENESIS,
  verifyAuditChain,
} from './chain.ts';
export {
  CHECKPOINT_DOMAIN,
  Checkpoint,
  type CheckpointVerdict,
  checkCheckpoints,
  checkpointMessage,
  type LocatedCheckpoint,
  parseCheckpoints,
} from './checkpoint.ts';
export { AuditCheckpointer, type CheckpointerOptions, type CheckpointFailure } from './checkpointer.ts';
export { AUDITED, AuditLog, KEY_AUDIT_KINDS, type KeyAuditKind, type SignatureEntry } from './log.ts';
