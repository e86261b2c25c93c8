// Public surface of src/audit: the tamper-evident chain (entry format, verification) and its Redis stream.
export {
  auditCanonical,
  auditFields,
  auditHash,
  type ChainEntry,
  type ChainVerdict,
  GENESIS,
  verifyAuditChain,
} from './chain.ts';
export { AUDITED, AuditLog, type SignatureEntry } from './log.ts';
