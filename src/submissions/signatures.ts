// Signature rounds: a submission whose party needs more signatures (M of its signing set) than Quill's own keys
// give waits `awaiting_signatures` until the external holders post theirs. Each signature is added by the store's
// signatures script (compare-and-set with the payload and its audit entry), so of any number of racing posts
// exactly one write moves the round to `accepted` when it reaches M, and only that caller enqueues it. A round
// past its deadline ends `expired` (SIGNATURES_MISSING) on read, on a post, and in the worker's sweep.

import { echo } from '@quill/canton/errors';
import type { Signature } from '@quill/canton/ledger';
import type { Principal } from '../auth/index.ts';
import { describeMovements } from '../policy/index.ts';
import { externalKey } from '../signing/index.ts';
import type { AcceptPorts } from './accept/types.ts';
import { SubmissionRefused } from './errors.ts';
import type { PipelineMetrics } from './metrics.ts';
import type { RoundKey, SubmissionPayload, SubmissionRecord } from './record.ts';
import {
  awaitedKeys,
  distinctSigners,
  markSigned,
  mergeSignatures,
  roundOverdue,
  type SetKey,
  type SigningSet,
  signaturesMissing,
  signedCount,
  storedSignatures,
  withSignatures,
} from './round.ts';
import type { SubmissionStore, VersionedRecord } from './store/index.ts';
import { expire, queue } from './transitions.ts';

export interface SignatureDeps {
  store: SubmissionStore;
  enqueue: (record: SubmissionRecord) => Promise<void>;
  /** The party's current signing set: a posted signature is verified against the public key registered there. */
  signingSet?: ((party: string) => Promise<SigningSet | undefined>) | undefined;
  /** Decodes the stored transaction again for the preview the signer reads (absent: no preview). */
  inspect?: AcceptPorts['inspect'] | undefined;
  metrics?: PipelineMetrics | undefined;
  now?: (() => number) | undefined;
}

const notFound = (id: string) => new SubmissionRefused(404, 'NOT_FOUND', `no submission ${echo(id)}`);

/** Moves a round past its deadline to expired (SIGNATURES_MISSING); returns the record as it stands. */
export async function expireRoundIfOverdue(
  store: SubmissionStore,
  rec: SubmissionRecord,
  now: number,
): Promise<SubmissionRecord> {
  if (rec.status !== 'awaiting_signatures' || !roundOverdue(rec, now) || !rec.signatureRound) return rec;
  return store.update(rec.id, (r) =>
    r.status === 'awaiting_signatures' && r.signatureRound
      ? expire(signaturesMissing(r.signatureRound))(r)
      : undefined,
  );
}

/**
 * The worker leader's sweep of records that wait on a deadline of their own: the oldest `limit` records in `status`,
 * each through `expireIfDue` (which returns it as it stands); returns how many it ended expired.
 */
export async function expireOverdue(
  store: SubmissionStore,
  status: 'awaiting_signatures' | 'awaiting_approval',
  expireIfDue: (rec: SubmissionRecord) => Promise<SubmissionRecord>,
  limit = 500,
): Promise<number> {
  let n = 0;
  for (const id of await store.idsInStatus(status, limit)) {
    const rec = await store.getRecord(id);
    if (!rec) continue;
    const after = await expireIfDue(rec);
    if (after !== rec && after.status === 'expired') n++;
  }
  return n;
}

/** Every round past its deadline, expired (the worker leader's sweep); returns how many it ended. */
export function expireOverdueRounds(store: SubmissionStore, now: number, limit = 500): Promise<number> {
  return expireOverdue(store, 'awaiting_signatures', (r) => expireRoundIfOverdue(store, r, now), limit);
}

/** An audit entry per signature added to a record. */
export type SignatureAudit = (sig: Signature) => Record<string, string>;

/**
 * Adds `signatures` to the record's payload and round; a round that reaches its threshold moves to `accepted`
 * (exactly one caller's write does that: `reached`), then that caller enqueues it and moves it to `queued`. A
 * record that is not `expect` any more (expired, already accepted by another's write) is left as it is. Keys
 * that already signed are counted once (their first signature stays).
 */
export async function addToRound(
  deps: Pick<SignatureDeps, 'store' | 'enqueue' | 'now'>,
  id: string,
  signatures: readonly Signature[],
  audit: SignatureAudit,
  expect: SubmissionRecord['status'] = 'awaiting_signatures',
): Promise<{ record: SubmissionRecord; added: boolean; reached: boolean }> {
  const now = deps.now ?? Date.now;
  let reached = false;
  const res = await deps.store.addSignatures(id, (r, payload) => {
    reached = false;
    if (r.status !== expect) return undefined;
    if (r.status === 'awaiting_signatures' && roundOverdue(r, now())) return undefined;
    const had = storedSignatures(payload);
    const fresh = signatures.filter((s) => !had.some((h) => h.signedBy === s.signedBy));
    if (fresh.length === 0) return undefined;
    const merged = mergeSignatures(had, fresh);
    const at = new Date(now()).toISOString();
    const round = r.signatureRound;
    const inSet = (fp: string) => !round || round.keys.some((k) => k.fingerprint === fp);
    const signers = distinctSigners(merged, inSet);
    const next: SubmissionRecord = {
      ...r,
      ...(round ? { signatureRound: markSigned(round, signers, at) } : {}),
    };
    if (r.status === 'awaiting_signatures' && signers.length >= (round?.threshold ?? 1)) {
      next.status = 'accepted';
      reached = true;
    }
    return {
      record: next,
      payload: withSignatures(payload as SubmissionPayload, r.party, merged),
      audit: fresh.map(audit),
      // Every signature on a waiting round is announced (`submission.signature`).
      announce: r.status === 'awaiting_signatures',
    };
  });
  if (!res.written) return { record: res.record, added: false, reached: false };
  if (!reached) return { record: res.record, added: true, reached: false };
  return { record: await enqueueReached(deps, res), added: true, reached: true };
}

/** The write that moved a round to accepted enqueues it, then marks it queued (recovery re-enqueues `accepted`). */
async function enqueueReached(
  deps: Pick<SignatureDeps, 'store' | 'enqueue'>,
  from: VersionedRecord,
): Promise<SubmissionRecord> {
  await deps.enqueue(from.record);
  return (await deps.store.transition(from.record.id, queue, from)).record;
}

export interface SignatureRequest {
  status: SubmissionRecord['status'];
  threshold: number;
  signed: number;
  awaiting: Pick<RoundKey, 'fingerprint' | 'label' | 'holder'>[];
  keys: RoundKey[];
  hash: string;
  hashBase64: string;
  preview: string | null;
  summary: string[] | null;
  deadline: string | null;
}

function visible(who: Principal, rec: SubmissionRecord | undefined, id: string): SubmissionRecord {
  if (!rec || (who.party !== undefined && who.party !== rec.party)) throw notFound(id);
  return rec;
}

/** What an external signer needs: the hash to sign, what it does, who signed and who is awaited, until when. */
export async function signatureRequest(
  deps: SignatureDeps,
  who: Principal,
  id: string,
): Promise<SignatureRequest> {
  const now = deps.now ?? Date.now;
  const stored = await deps.store.get(id);
  let rec = visible(who, stored?.record, id);
  const round = rec.signatureRound;
  if (!round) {
    throw new SubmissionRefused(
      409,
      'NOT_AWAITING_SIGNATURES',
      `submission ${rec.id} has no signature round: its party signs with one Quill key`,
    );
  }
  rec = await expireRoundIfOverdue(deps.store, rec, now());
  const r = rec.signatureRound ?? round;
  const summary = await previewOf(deps, rec, stored?.payload);
  const hash = Buffer.from(rec.preparedTransactionHash, 'hex');
  return {
    status: rec.status,
    threshold: r.threshold,
    signed: signedCount(r),
    awaiting: awaitedKeys(r).map((k) => ({ fingerprint: k.fingerprint, label: k.label, holder: k.holder })),
    keys: r.keys,
    hash: rec.preparedTransactionHash,
    hashBase64: hash.toString('base64'),
    preview: summary ? summary.join(' ') : null,
    summary,
    deadline: r.deadline,
  };
}

/** The sentences the approvers read, from the stored transaction decoded again (its hash checked). */
async function previewOf(
  deps: SignatureDeps,
  rec: SubmissionRecord,
  payload: SubmissionPayload | undefined,
): Promise<string[] | null> {
  if (!payload || !deps.inspect) return rec.approval?.summary ?? null;
  try {
    const tx = await deps.inspect(payload.preparedTransaction, rec.hashingSchemeVersion);
    if (Buffer.from(tx.hash).toString('hex') !== rec.preparedTransactionHash || !tx.facts) return null;
    return describeMovements(tx.facts().movements);
  } catch {
    return rec.approval?.summary ?? null;
  }
}

export interface PostedSignature {
  format: string;
  signature: string;
  signedBy: string;
  signingAlgorithmSpec: string;
}

export interface SignatureResult {
  record: SubmissionRecord;
  /** False for a key that had already signed (the post is idempotent: counted once). */
  counted: boolean;
  /** True when this signature reached the threshold and this call queued the submission. */
  queued: boolean;
}

const REFUSED = {
  notSigner: (fp: string) =>
    new SubmissionRefused(422, 'NOT_A_SIGNER', `key ${echo(fp)} is not in the party's signing set`),
  bad: (fp: string) =>
    new SubmissionRefused(
      422,
      'BAD_SIGNATURE',
      `the signature does not verify with key ${echo(fp)} over the prepared transaction hash (its registered public key, its algorithm and format)`,
    ),
  notAwaiting: (rec: SubmissionRecord) =>
    new SubmissionRefused(
      409,
      'NOT_AWAITING_SIGNATURES',
      `submission ${rec.id} is ${rec.status}, not awaiting signatures`,
    ),
  expired: (rec: SubmissionRecord) =>
    new SubmissionRefused(
      409,
      'ROUND_EXPIRED',
      `submission ${rec.id}'s signature round ended at ${rec.signatureRound?.deadline ?? 'its deadline'}`,
    ),
};

/**
 * An external holder's signature over the submission's hash. Refusals: 404 (unknown or another party's), 422
 * NOT_A_SIGNER (not a key of the party's set), 422 BAD_SIGNATURE, 409 NOT_AWAITING_SIGNATURES, 409 ROUND_EXPIRED.
 * A key that already signed is answered 200 with `counted: false`.
 */
export async function postSignature(
  deps: SignatureDeps,
  who: Principal,
  id: string,
  posted: PostedSignature,
): Promise<SignatureResult> {
  const now = deps.now ?? Date.now;
  let rec = visible(who, await deps.store.getRecord(id), id);
  const round = rec.signatureRound;
  if (!round) throw REFUSED.notAwaiting(rec);
  // The key must be in the round and in the party's set as it stands: its registered public key verifies.
  const set = await deps.signingSet?.(rec.party);
  const key = set?.keys.find((k) => k.fingerprint === posted.signedBy);
  if (!key || !round.keys.some((k) => k.fingerprint === posted.signedBy))
    throw REFUSED.notSigner(posted.signedBy);
  const hash = Buffer.from(rec.preparedTransactionHash, 'hex');
  const sig = verifiedPost(key, hash, posted as Signature);
  if (!sig) throw REFUSED.bad(posted.signedBy);
  if (round.keys.some((k) => k.fingerprint === sig.signedBy && k.signedAt !== null))
    return { record: rec, counted: false, queued: false };
  rec = await expireRoundIfOverdue(deps.store, rec, now());
  if (rec.status !== 'awaiting_signatures') {
    if (rec.error?.code === 'SIGNATURES_MISSING') throw REFUSED.expired(rec);
    throw REFUSED.notAwaiting(rec);
  }
  const result = await addToRound(deps, rec.id, [sig], (s) => ({
    kind: 'submission.signature',
    at: new Date(now()).toISOString(),
    actor: who.subject,
    party: rec.party,
    submission: rec.id,
    commandId: rec.commandId,
    hash: rec.preparedTransactionHash,
    keyFingerprint: s.signedBy,
    holder: key.holder,
  }));
  if (result.added) {
    deps.metrics?.signed.inc({ algorithm: sig.signingAlgorithmSpec });
    return { record: result.record, counted: true, queued: result.reached };
  }
  // Not added: another post of the same key landed first, or the round ended or moved on meanwhile.
  const cur = await expireRoundIfOverdue(deps.store, result.record, now());
  if (cur.signatureRound?.keys.some((k) => k.fingerprint === sig.signedBy && k.signedAt !== null))
    return { record: cur, counted: false, queued: false };
  if (cur.error?.code === 'SIGNATURES_MISSING') throw REFUSED.expired(cur);
  throw REFUSED.notAwaiting(cur);
}

/**
 * A posted signature checked against the public key registered in the party's set (never anything the poster
 * sends), over the 32-byte hash; in the canonical form it is stored and sent, or undefined.
 */
function verifiedPost(key: SetKey, hash: Uint8Array, posted: Signature): Signature | undefined {
  if (!key.publicKey || !key.keySpec) return undefined;
  try {
    const checked = externalKey(key.publicKey, key.keySpec).check(posted, hash);
    return 'signature' in checked ? checked.signature : undefined;
  } catch {
    return undefined;
  }
}
