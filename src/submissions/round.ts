// A submission's signature round, as pure functions of the record and its payload: who is in the party's signing
// set, which distinct keys of it signed, whether that meets its threshold (M), and what is still awaited. The
// accept path, approvals, external signers and the worker all count the same way, here.
import type { Signature } from '@quill/canton/ledger';
import type { ErrorInfo, RoundKey, SignatureRound, SubmissionPayload, SubmissionRecord } from './record.ts';

/**
 * A key of a party's signing set as the pipeline sees it (src/parties `SetKey` satisfies it: the composition root
 * passes the registry's sets through the ports). An external key's `publicKey` (DER SPKI, base64) and `keySpec`
 * are what a posted signature is verified against.
 */
export interface SetKey {
  fingerprint: string;
  holder: 'quill' | 'external';
  label?: string | null | undefined;
  publicKey?: string | undefined;
  keySpec?: string | undefined;
}

/** A party's signing set: M (`threshold`) of its N keys sign each transaction (src/parties `SigningSet`). */
export interface SigningSet {
  threshold: number;
  keys: SetKey[];
}

/**
 * Whether a party signs through a round: any set other than one Quill key at threshold 1 (a single-key party and
 * a `separate` 1-of-1 held by Quill keep one signature and no `signatureRound`, as before signing sets).
 */
export function usesRound(set: SigningSet): boolean {
  return !(set.threshold === 1 && set.keys.length === 1 && set.keys[0]?.holder === 'quill');
}

/** The keys of a set Quill signs with (never the namespace key of a `separate` layout: it is not in the set). */
export function quillKeys(set: Pick<SigningSet, 'keys'>): string[] {
  return set.keys.filter((k) => k.holder === 'quill').map((k) => k.fingerprint);
}

/** A new round over a set, with the keys that already signed (at `at`). */
export function newRound(set: SigningSet, deadline: string | null, signed: Iterable<string>, at: string) {
  const done = new Set(signed);
  return {
    threshold: set.threshold,
    deadline,
    keys: set.keys.map(
      (k): RoundKey => ({
        fingerprint: k.fingerprint,
        holder: k.holder,
        label: k.label ?? null,
        signedAt: done.has(k.fingerprint) ? at : null,
      }),
    ),
  } satisfies SignatureRound;
}

/** The party's signatures in a payload (the one party of a single-party submission). */
export function storedSignatures(payload: Pick<SubmissionPayload, 'partySignatures'>): Signature[] {
  return payload.partySignatures.signatures.flatMap((p) => p.signatures);
}

/** Distinct signers among `signatures`, counting only keys `inSet` admits. */
export function distinctSigners(signatures: readonly Signature[], inSet: (fp: string) => boolean): string[] {
  return [...new Set(signatures.map((s) => s.signedBy).filter(inSet))];
}

/** `signatures` with `added` appended, one per key (a key that already signed keeps its first signature). */
export function mergeSignatures(signatures: readonly Signature[], added: readonly Signature[]): Signature[] {
  const out = [...signatures];
  for (const s of added) if (!out.some((o) => o.signedBy === s.signedBy)) out.push(s);
  return out;
}

/** The payload carrying exactly `signatures` for `party`. */
export function withSignatures(payload: SubmissionPayload, party: string, signatures: Signature[]) {
  return {
    ...payload,
    partySignatures: { signatures: signatures.length > 0 ? [{ party, signatures }] : [] },
  } satisfies SubmissionPayload;
}

/** The round with `signed` keys marked as signed at `at` (keys already marked keep their time). */
export function markSigned(round: SignatureRound, signed: Iterable<string>, at: string): SignatureRound {
  const done = new Set(signed);
  return {
    ...round,
    keys: round.keys.map((k) =>
      k.signedAt === null && done.has(k.fingerprint) ? { ...k, signedAt: at } : k,
    ),
  };
}

export function signedCount(round: SignatureRound): number {
  return round.keys.filter((k) => k.signedAt !== null).length;
}

export function awaitedKeys(round: SignatureRound): RoundKey[] {
  return round.keys.filter((k) => k.signedAt === null);
}

/** A key as people read it: its label, else its fingerprint's first characters. */
export function keyName(k: Pick<RoundKey, 'fingerprint' | 'label'>): string {
  return k.label ? `${k.label} (${k.fingerprint.slice(0, 12)}…)` : `${k.fingerprint.slice(0, 16)}…`;
}

export function roundOverdue(rec: SubmissionRecord, now: number): boolean {
  const d = rec.signatureRound?.deadline;
  return d !== null && d !== undefined && Date.parse(d) <= now;
}

/** Why a round ended short of its threshold. */
export function signaturesMissing(round: SignatureRound): ErrorInfo {
  const awaited = awaitedKeys(round).map(keyName).join(', ');
  return {
    code: 'SIGNATURES_MISSING',
    message: `${signedCount(round)} of ${round.threshold} signatures by ${round.deadline ?? 'the deadline'}; awaiting ${awaited || 'no key'}`,
  };
}

/** The party's signing set through the accept ports: its set, or its one key at threshold 1. */
export async function signingSetFor(
  ports: {
    partyKey(party: string): Promise<string | undefined>;
    signingSet?(party: string): Promise<SigningSet | undefined>;
  },
  party: string,
): Promise<SigningSet | undefined> {
  const set = await ports.signingSet?.(party);
  if (set) return set;
  const fp = await ports.partyKey(party);
  if (!fp) return undefined;
  return { threshold: 1, keys: [{ fingerprint: fp, holder: 'quill', label: null }] };
}
