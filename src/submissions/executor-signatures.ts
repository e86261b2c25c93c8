// What the worker checks before it sends: the stored signatures against the party's signing set as it stands at
// execute time. The set may have changed since signing (a topology update rotated keys): signatures by keys no
// longer in it are dropped (and those by keys disabled since), the keys Quill holds in the current set sign
// again if that leaves fewer than M (the hash is the same; policy and approvals already passed), and a record
// still short of M is never sent: fewer signatures than the threshold must not reach the ledger.
import type { PartySignatures, Signature } from '@quill/canton/ledger';
import type { AcceptPorts } from './accept/types.ts';
import type { ErrorInfo, SubmissionRecord } from './record.ts';
import {
  distinctSigners,
  newRound,
  quillKeys,
  type SigningSet,
  storedSignatures,
  withSignatures,
} from './round.ts';
import { signWithQuillKeys } from './round-sign.ts';
import type { StoredSubmission, SubmissionStore, VersionedRecord } from './store/index.ts';

/** The worker's view of the parties' signing sets and Quill's keys (absent: the stored signatures are checked only). */
export interface SignaturePorts {
  signingSet(party: string): Promise<SigningSet | undefined>;
  /** Signs and verifies (the accept path's `sign`): a disabled or missing key is a SubmissionRefused. */
  sign: AcceptPorts['sign'];
}

export type SignatureCheck =
  /** Send these; `from` is the record's version when the check wrote new signatures. */
  | { kind: 'send'; partySignatures: PartySignatures; from?: VersionedRecord }
  | { kind: 'refuse'; error: ErrorInfo }
  /** Another writer changed the record meanwhile: check again on the next step. */
  | { kind: 'again' };

function short(rec: SubmissionRecord, have: number, threshold: number, rotated: boolean): ErrorInfo {
  return rotated
    ? {
        code: 'KEYS_ROTATED',
        message: `the party's signing set changed since it was signed: ${have} of ${threshold} signatures are by keys of its current set, and Quill's keys in it could not make up the rest; nothing was sent`,
      }
    : {
        code: 'SIGNATURES_MISSING',
        message: `${have} of ${threshold} signatures stored for party ${rec.party}; nothing was sent`,
      };
}

export async function checkSignatures(
  deps: { store: SubmissionStore; signatures?: SignaturePorts | undefined; now?: () => number },
  cur: StoredSubmission & { payload: NonNullable<StoredSubmission['payload']> },
): Promise<SignatureCheck> {
  const { record: rec, payload } = cur;
  const now = deps.now ?? Date.now;
  const set = await deps.signatures?.signingSet(rec.party);
  const stored = storedSignatures(payload);
  // Neither a set nor a round to count against (a harness that knows single-key parties only): as stored.
  if (!set && !rec.signatureRound) return { kind: 'send', partySignatures: payload.partySignatures };
  // A key disabled since it signed (compromise, retirement) no longer counts; single-key records keep the
  // decision's own check of their key (KEY_DISABLED).
  const disabled = new Set<string>();
  if (rec.signatureRound) {
    for (const s of stored) if (await deps.store.keyFlags.isDisabled(s.signedBy)) disabled.add(s.signedBy);
  }
  const inRound = (fp: string) =>
    !rec.signatureRound || rec.signatureRound.keys.some((k) => k.fingerprint === fp);
  const inSet = (fp: string) => (set ? set.keys.some((k) => k.fingerprint === fp) : inRound(fp));
  const keep = stored.filter((s) => inSet(s.signedBy) && !disabled.has(s.signedBy));
  const threshold = set?.threshold ?? rec.signatureRound?.threshold ?? 1;
  const signers = distinctSigners(keep, inSet);
  const rotated = keep.length < stored.length || threshold > (rec.signatureRound?.threshold ?? 1);
  if (signers.length >= threshold) {
    return {
      kind: 'send',
      partySignatures: rotated
        ? withSignatures(payload, rec.party, keep).partySignatures
        : payload.partySignatures,
    };
  }
  if (!set || !deps.signatures)
    return { kind: 'refuse', error: short(rec, signers.length, threshold, rotated) };
  const hash = Buffer.from(rec.preparedTransactionHash, 'hex');
  const toSign = quillKeys(set).filter((fp) => !signers.includes(fp) && !disabled.has(fp));
  const fresh = (
    await signWithQuillKeys(deps.signatures.sign, toSign, hash, { 'quill.submission.id': rec.id })
  ).signatures;
  const all: Signature[] = [...keep, ...fresh];
  const at = new Date(now()).toISOString();
  const allSigners = distinctSigners(all, inSet);
  if (allSigners.length < threshold) {
    return { kind: 'refuse', error: short(rec, allSigners.length, threshold, rotated) };
  }
  // Kept with their audit entries (actor `worker`): the record's round now tells the current set.
  const written = await deps.store.addSignatures(rec.id, (r, p) => {
    if (r.status !== cur.record.status) return undefined;
    const kept = new Map((r.signatureRound?.keys ?? []).map((k) => [k.fingerprint, k.signedAt]));
    const round = newRound(set, r.signatureRound?.deadline ?? r.canCommitUntil, allSigners, at);
    return {
      record: {
        ...r,
        signatureRound: {
          ...round,
          keys: round.keys.map((k) => ({
            ...k,
            signedAt: k.signedAt && (kept.get(k.fingerprint) ?? k.signedAt),
          })),
        },
      },
      payload: withSignatures(p, r.party, all),
      audit: fresh.map((sig) => ({
        at: at,
        actor: 'worker',
        party: r.party,
        keyFingerprint: sig.signedBy,
        hash: r.preparedTransactionHash,
        commandId: r.commandId,
        submission: r.id,
        stored: 'true',
      })),
      announce: false,
    };
  });
  if (!written.written) return { kind: 'again' };
  return {
    kind: 'send',
    partySignatures: withSignatures(payload, rec.party, all).partySignatures,
    from: { record: written.record, version: written.version },
  };
}
