/**
 * Traffic costs: what the sequencer charges the submitting participant for a transaction, estimated at prepare
 * (`costEstimation`, enabled unless `estimateTrafficCost.disabled`) and reported as `paidTrafficCost` once committed.
 * The sandbox's cost is a deterministic function of size: the confirmation request costs the prepared
 * transaction's bytes plus its signatures plus a fixed envelope, the confirmation response a fixed amount. A
 * transaction estimated at prepare pays the estimate when signed as expected.
 */
const ENVELOPE = 200;
export const CONFIRMATION_RESPONSE_COST = 150;

/** Bytes of one signature of an algorithm (Ed25519 64; ECDSA DER up to 72 for P-256, 104 for P-384). */
export function signatureBytes(algorithm: string | undefined): number {
  if (algorithm?.includes('SHA_384')) return 104;
  if (algorithm?.includes('EC_DSA')) return 72;
  return 64;
}

export function confirmationRequestCost(transactionBytes: number, signatureBytesTotal: number): number {
  return transactionBytes + signatureBytesTotal + ENVELOPE;
}

export function trafficCost(transactionBytes: number, signatureBytesTotal: number): number {
  return confirmationRequestCost(transactionBytes, signatureBytesTotal) + CONFIRMATION_RESPONSE_COST;
}
