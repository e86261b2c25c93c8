// The participant's own rules for a PartyToParticipant, checked before Quill asks anyone to sign it, so a
// refusal is a clear local message rather than a 400 from /v2/parties/external/allocate after signing.
import { TopologyError } from './errors.ts';
import { keyFingerprint } from './hash.ts';
import type { PartyToParticipant } from './types.ts';

/** KeyMapping.MaxKeys (topology/transaction/TopologyMapping.scala). */
const MAX_KEYS = 20;
/** A UniqueIdentifier `identifier::namespace` whose namespace is a sha256 fingerprint (topology/UniqueIdentifier.scala). */
const UID = /^(.+)::(1220[0-9a-f]{64})$/;

/** Why the participant would refuse this mapping, or undefined when it would not. */
export function partyToParticipantProblem(m: PartyToParticipant): string | undefined {
  // PartyId.fromProtoPrimitive: `hint::namespace`, the hint without `::`.
  if (typeof m?.party !== 'string' || !uidShape(m.party)) {
    return 'party must be hint::1220<64 lowercase hex>';
  }
  if (!Array.isArray(m.participants)) return 'participants must be an array';
  const seen = new Set<string>();
  for (const p of m.participants) {
    if (typeof p?.uid !== 'string' || !uidShape(p.uid))
      return 'participant uid must be name::1220<64 lowercase hex>';
    // PartyToParticipant.create would merge repeats silently (keeping the higher permission); we refuse them.
    if (seen.has(p.uid)) return `participant ${p.uid} is listed twice`;
    seen.add(p.uid);
  }
  // TopologyManager's dangerous-change check TOPOLOGY_CONFIRMING_THRESHOLD_CANNOT_BE_REACHED (TopologyManager.scala).
  const confirming = m.participants.filter(
    (p) => p.permission === 'confirmation' || p.permission === 'submission',
  );
  if (!Number.isInteger(m.threshold) || m.threshold < 1 || m.threshold > confirming.length) {
    return `confirmation threshold ${m.threshold} must be in 1..${confirming.length} (the hosts with confirmation or submission)`;
  }
  const sk = m.signingKeys;
  if (sk === undefined) return undefined;
  if (!Array.isArray(sk?.keys) || sk.keys.length === 0) return 'signingKeys.keys must not be empty';
  // KeyMapping.validateKeysSizeSet (TopologyMapping.scala) and SigningKeysWithThreshold.createFromSeq (crypto/Signing.scala).
  if (sk.keys.length > MAX_KEYS) return `at most ${MAX_KEYS} signing keys (got ${sk.keys.length})`;
  const prints = new Set<string>();
  for (const [i, k] of sk.keys.entries()) {
    let fp: string;
    try {
      fp = keyFingerprint(k.spki, k.keySpec);
    } catch (err) {
      if (err instanceof TopologyError) return `signingKeys.keys[${i}]: ${err.message}`;
      throw err;
    }
    if (prints.has(fp)) return `signing key ${fp} is listed twice`;
    prints.add(fp);
  }
  // TOPOLOGY_SIGNING_THRESHOLD_CANNOT_BE_REACHED (TopologyManager.scala): the threshold must be reachable.
  if (!Number.isInteger(sk.threshold) || sk.threshold < 1 || sk.threshold > sk.keys.length) {
    return `signing key threshold ${sk.threshold} must be in 1..${sk.keys.length}`;
  }
  return undefined;
}

function uidShape(s: string): boolean {
  const m = UID.exec(s);
  return m !== null && !m[1]!.includes('::');
}
