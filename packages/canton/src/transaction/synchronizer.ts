/**
 * A synchronizer id in either of its forms. `/v2/state/connected-synchronizers` lists logical ids,
 * `<identifier>::<namespace>`; a prepared transaction of protocol version 35 (the only one hashed with V3) names the
 * physical id, `<logical>::<protocol version>-<serial>` (PhysicalSynchronizerId.forExternalTransactionHashing),
 * whose serial changes with a logical synchronizer upgrade.
 */
const PHYSICAL_SUFFIX = /^\d+-\d+$/;

/** The logical id of `id`; `id` itself when it is one. */
export function logicalSynchronizerId(id: string): string {
  const parts = id.split('::');
  return parts.length === 3 && PHYSICAL_SUFFIX.test(parts[2] as string) ? `${parts[0]}::${parts[1]}` : id;
}
