/**
 * What a PartyToParticipant change needs to be authorized, and which signatures count
 * (topology/TopologyMapping.scala `PartyToParticipant.requiredAuthInternal` L1751–1855;
 * processing/TopologyTransactionAuthorizationValidator.scala L161–460; external-party-keys.md §1.5).
 */
import { err } from '../errors.ts';
import { checkSignature, type RegisteredKey } from '../keys.ts';
import { type PartyToParticipant, type TopologyTransaction, USAGE } from './codec.ts';
import { hex, multiHash } from './hash.ts';

export type SignatureFormat = 'SIGNATURE_FORMAT_CONCAT' | 'SIGNATURE_FORMAT_DER' | 'SIGNATURE_FORMAT_RAW';
export type SigningAlgorithm =
  | 'SIGNING_ALGORITHM_SPEC_ED25519'
  | 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256'
  | 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384';

export interface TopologySignature {
  signedBy: string;
  format: SignatureFormat;
  signature: Uint8Array;
  signingAlgorithmSpec: SigningAlgorithm;
}

export interface MultiTransactionSignatures {
  transactionHashes: Uint8Array[];
  signatures: TopologySignature[];
}

/** A signature and the 34 bytes it must sign (this transaction's hash, or the multi-hash it names). */
interface Candidate {
  sig: TopologySignature;
  message: Uint8Array;
}

/**
 * One signature per signer: multi-transaction signatures that cover this transaction's hash, then its own
 * signatures, which win (ExternalPartyOnboardingDetails.parseTransactionsWithSignatures L217–297). A
 * multi-transaction signature whose hash list lacks this transaction is MultiTransactionHashMismatch.
 */
export function collectSignatures(
  tx: TopologyTransaction,
  own: TopologySignature[],
  multi: MultiTransactionSignatures[],
): Map<string, Candidate> {
  const out = new Map<string, Candidate>();
  for (const m of multi) {
    if (!m.transactionHashes.some((h) => hex(h) === tx.hashHex)) {
      throw err.multiTransactionHashMismatch(tx.hashHex, m.transactionHashes.map(hex));
    }
    const message = multiHash(m.transactionHashes);
    for (const sig of m.signatures) out.set(sig.signedBy, { sig, message });
  }
  for (const sig of own) out.set(sig.signedBy, { sig, message: tx.hash });
  return out;
}

/**
 * Verifies the signatures by keys that can authorize something here; the others are superfluous and
 * dropped. A relevant key whose signature does not verify fails the transaction (InvalidSignatureError).
 * Returns the fingerprints that signed validly.
 */
export function verifySigners(
  candidates: Map<string, Candidate>,
  keys: Map<string, RegisteredKey>,
): Set<string> {
  const signers = new Set<string>();
  for (const [fp, { sig, message }] of candidates) {
    const key = keys.get(fp);
    if (!key) continue;
    const why = checkSignature(
      key,
      {
        format: sig.format,
        signature: Buffer.from(sig.signature).toString('base64'),
        signedBy: sig.signedBy,
        signingAlgorithmSpec: sig.signingAlgorithmSpec,
      } as never,
      message,
    );
    if (why !== undefined) throw err.topologyInvalidSignature();
    signers.add(fp);
  }
  return signers;
}

/** How the party namespace can be authorized: a self key, a root delegation, or a decentralized namespace. */
export interface NamespaceAuthority {
  /** Keys whose signature alone authorizes the namespace (self key with NAMESPACE usage, root delegation target). */
  keys: Map<string, RegisteredKey>;
  /** A decentralized namespace: `threshold` of its owners' root keys. */
  decentralized?: { threshold: number; ownerKeys: Map<string, RegisteredKey> };
}

export function namespaceAuthorized(a: NamespaceAuthority, signers: Set<string>): boolean {
  if ([...a.keys.keys()].some((fp) => signers.has(fp))) return true;
  if (!a.decentralized) return false;
  const owners = [...a.decentralized.ownerKeys.keys()].filter((fp) => signers.has(fp)).length;
  return owners >= a.decentralized.threshold;
}

/**
 * The namespace key the new mapping carries, if any: a listed key whose fingerprint is the party namespace,
 * with NAMESPACE usage (PartyToParticipant.namespaceKeyForSelfAuthorization, TopologyMapping.scala L1745;
 * TopologyManager.assignExpectedUsageToKeys L1225–1265).
 */
export function selfKey(m: PartyToParticipant): RegisteredKey | undefined {
  const k = m.signingKeys?.keys.find((k) => k.key.fingerprint === m.namespace);
  return k?.usage.includes(USAGE.NAMESPACE) ? k.key : undefined;
}

export interface Required {
  /** The party namespace must authorize. */
  namespace: boolean;
  /** Every added signing key must sign (its proof of possession), by fingerprint. */
  keys: string[];
  /** Participants that must approve (added hosts, upgrades). */
  participants: string[];
  /** Removed or downgraded hosts: the party namespace or that participant. */
  namespaceOrParticipant: string[];
}

/** PartyToParticipant.requiredAuthInternal, relative to the active mapping (nothing at creation). */
export function requiredFor(
  next: PartyToParticipant,
  prev: PartyToParticipant | undefined,
  remove: boolean,
): Required {
  if (remove) return { namespace: true, keys: [], participants: [], namespaceOrParticipant: [] };
  const prevKeys = new Set(prev?.signingKeys?.keys.map((k) => k.key.fingerprint) ?? []);
  const nextKeys = next.signingKeys?.keys.map((k) => k.key.fingerprint) ?? [];
  const added = nextKeys.filter((fp) => !prevKeys.has(fp));
  const keysChanged =
    added.length > 0 ||
    prevKeys.size !== nextKeys.length ||
    prev?.signingKeys?.threshold !== next.signingKeys?.threshold;
  const prevHosts = new Map(prev?.participants.map((h) => [h.uid, h]) ?? []);
  const nextHosts = new Map(next.participants.map((h) => [h.uid, h]));
  const participants: string[] = [];
  const namespaceOrParticipant: string[] = [];
  let namespace = !prev || prev.threshold !== next.threshold || keysChanged;
  for (const h of next.participants) {
    const before = prevHosts.get(h.uid);
    if (!before || h.permission < before.permission) {
      // Added or upgraded (SUBMISSION = 1 is the strongest): party and participant.
      namespace = true;
      participants.push(h.uid);
    } else if (h.permission > before.permission) namespaceOrParticipant.push(h.uid);
    else if (before && h.onboarding && !before.onboarding) namespace = true;
    else if (before && !h.onboarding && before.onboarding) participants.push(h.uid);
  }
  for (const uid of prevHosts.keys()) if (!nextHosts.has(uid)) namespaceOrParticipant.push(uid);
  return { namespace, keys: added, participants, namespaceOrParticipant };
}

export interface Missing {
  namespaces: string[];
  keys: string[];
}

/** What is still missing, in the validator's terms: namespaces (party, participants) and keys. */
export function missingFor(
  req: Required,
  partyNamespace: string,
  namespaceOk: boolean,
  signers: Set<string>,
  approvals: Set<string>,
): Missing {
  const namespaces: string[] = [];
  if (req.namespace && !namespaceOk) namespaces.push(partyNamespace);
  for (const uid of req.participants) if (!approvals.has(uid)) namespaces.push(namespaceOfUid(uid));
  for (const uid of req.namespaceOrParticipant)
    if (!namespaceOk && !approvals.has(uid) && !namespaces.includes(partyNamespace))
      namespaces.push(partyNamespace);
  return { namespaces, keys: req.keys.filter((fp) => !signers.has(fp)) };
}

export function namespaceOfUid(uid: string): string {
  return uid.slice(uid.indexOf('::') + 2);
}

/**
 * The validator's refusal (TopologyManagerError.UnauthorizedTransaction): NoNamespaceAuth when the party
 * namespace itself is not authorized, otherwise Missing(namespaces, extra keys) as Scala prints the sets.
 */
export function unauthorized(m: Missing, partyNamespace: string) {
  if (m.namespaces.includes(partyNamespace))
    return err.topologyUnauthorized('Topology transaction is not properly authorized by any namespace key');
  return err.topologyUnauthorized(
    `Topology transaction is missing authorizations by namespaces=Set(${m.namespaces.join(', ')}) and keys=Set(${m.keys.join(', ')})`,
  );
}
