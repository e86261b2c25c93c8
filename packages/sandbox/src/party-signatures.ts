/**
 * The executing participant's check of an external submission's party signatures against the topology
 * (crypto/InteractiveSubmission.scala `verifySignatures` L152–271, called from
 * EnrichedTransactionData.verifySignature L160–216; external-party-keys.md §1.8): every actAs party signed;
 * its keys and threshold come from its active PartyToParticipant; on protocol 35 no more signatures than
 * keys with PROTOCOL usage; a signature counts when its key is listed with PROTOCOL usage and it verifies
 * over the raw 32-byte hash; distinct valid keys must reach the threshold.
 */
import type { Signature } from '@quill/canton/ledger';
import { err } from './errors.ts';
import { checkSignature } from './keys.ts';
import type { SandboxState } from './state/index.ts';
import { USAGE } from './topology/codec.ts';

export function verifyPartySignatures(
  state: SandboxState,
  opts: {
    actAs: string[];
    /** Entries for the same party are merged (SubmitRequestValidator.scala L87–107). */
    signatures: { party: string; signatures: Signature[] }[];
    hash: Uint8Array;
    synchronizerId: string;
    /** Protocol 35 (hashing scheme V3) adds the signature count check. */
    pv35: boolean;
  },
): void {
  const given = new Map<string, Signature[]>();
  for (const e of opts.signatures) given.set(e.party, [...(given.get(e.party) ?? []), ...e.signatures]);
  const unsigned = opts.actAs.filter((p) => !given.has(p));
  if (unsigned.length > 0)
    throw err.executeFailed(
      `The following actAs parties did not provide an external signature: ${unsigned.join(', ')}`,
    );
  const hashHex = `1220${Buffer.from(opts.hash).toString('hex')}`;
  for (const party of opts.actAs) {
    if (!state.parties.has(party)) throw err.partyNotFound(party);
    const keys = state.topology.signingKeys(party, opts.synchronizerId);
    if (!keys) throw err.executeFailed(`Could not find party signing keys for ${party}.`);
    const sigs = given.get(party) ?? [];
    const protocol = keys.keys.filter((k) => k.usage.includes(USAGE.PROTOCOL));
    if (opts.pv35 && sigs.length > protocol.length)
      throw err.executeFailed(
        `${sigs.length} external signatures were provided, which is more than the number of registered signing keys (${protocol.length}) with protocol usage for ${party}`,
      );
    const byFingerprint = new Map(protocol.map((k) => [k.key.fingerprint, k.key]));
    const valid = new Set<string>();
    let invalid = 0;
    for (const sig of sigs) {
      // "Signing key X is not a valid key for party" is only logged (INFO): the signature just does not count.
      const key = byFingerprint.get(sig.signedBy);
      if (key && checkSignature(key, sig, opts.hash) === undefined) valid.add(key.fingerprint);
      else invalid++;
    }
    if (valid.size < keys.threshold)
      throw err.executeFailed(
        `Received ${valid.size} valid signatures from distinct keys (${invalid} invalid), but expected at least ${keys.threshold} valid for ${party}. Transaction hash to be signed: ${hashHex}. Ensure the correct transaction hash is signed with the correct key(s).`,
      );
  }
}
