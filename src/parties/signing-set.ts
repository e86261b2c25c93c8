// A party's signing set: which keys sign its transactions and how many must (the `party_signing_keys` of its
// PartyToParticipant). Single-key parties (records written before M-of-N) are their namespace key, threshold 1.
import type { PartyRecord, SigningKeyEntry } from './registry.ts';

/**
 * A key of the set. A key Quill holds has its public key in the key store; an external key's public key is only
 * here (`publicKey`, DER SPKI base64), which is what a posted signature is verified against.
 */
export type SetKey = Pick<SigningKeyEntry, 'fingerprint' | 'holder' | 'label'> &
  Partial<Pick<SigningKeyEntry, 'publicKey' | 'keySpec'>>;

export interface SigningSet {
  partyId: string;
  /** How many distinct keys must sign a transaction (M). */
  threshold: number;
  /** The N keys, in the order of the party's topology. */
  keys: SetKey[];
  /** The party's namespace key: it signs topology only, never a transaction, unless the layout is `single`. */
  namespaceFingerprint: string;
  layout: 'single' | 'separate';
}

/** The signing set of a registered party. */
export function signingSetOf(record: PartyRecord): SigningSet {
  const layout = record.layout ?? (record.signing ? 'separate' : 'single');
  if (record.signing) {
    return {
      partyId: record.partyId,
      threshold: record.signing.threshold,
      keys: record.signing.keys,
      namespaceFingerprint: record.keyFingerprint,
      layout,
    };
  }
  return {
    partyId: record.partyId,
    threshold: 1,
    keys: [{ fingerprint: record.keyFingerprint, holder: 'quill', label: null }],
    namespaceFingerprint: record.keyFingerprint,
    layout: 'single',
  };
}

/** Whether a key may sign the party's transactions (the namespace key of a `separate` layout never does). */
export function signsTransactions(set: SigningSet, fingerprint: string): boolean {
  return set.keys.some((k) => k.fingerprint === fingerprint);
}
