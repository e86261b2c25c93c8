// Approvals (issue 15): a submission the policy held as `awaiting_approval` is decided by distinct subjects,
// each bound to the hash they saw. The write that reaches the quorum moves the record to `accepted` by
// compare-and-set (the store's TRANSITION Lua script checks the version), so exactly one caller signs, stores
// the signature and enqueues, however many approvals race. A record past its approval deadline is moved to
// `expired` (APPROVAL_EXPIRED) by the next `decideApproval` or `listAwaiting` that sees it, or by the worker
// leader's sweep, whichever comes first. An approval is decided under the policy in force (issue 29): before it
// counts, the stored transaction is evaluated again, and a policy that now denies it ends it `rejected`
// (POLICY_CHANGED), one that needs other or more approvers keeps it waiting under the new requirement.
import { echo } from '@quill/canton/errors';
import { instrumentKey } from '@quill/canton/token';
import { type Principal, samePerson } from '../auth/index.ts';
import { canonicalJson } from '../json.ts';
import type { Log } from '../log.ts';
import {
  evaluatePolicy,
  type PolicyOutcome,
  subtractDecimals,
  type VelocityLookup,
} from '../policy/index.ts';
import { parseHash } from './accept/checks.ts';
import type { AcceptPorts, PolicyPort } from './accept/types.ts';
import { SubmissionRefused } from './errors.ts';
import type { PipelineMetrics } from './metrics.ts';
import type { Approval, SubmissionRecord } from './record.ts';
import { distinctSigners } from './round.ts';
import { signWithQuillKeys } from './round-sign.ts';
import { addToRound, expireOverdue } from './signatures.ts';
import type { SubmissionStore } from './store/index.ts';
import { expire, queue, reject } from './transitions.ts';

export interface ApprovalDeps {
  store: SubmissionStore;
  /** The accept path's `sign` port: signs and verifies the 32-byte hash. */
  sign: AcceptPorts['sign'];
  enqueue: (record: SubmissionRecord) => Promise<void>;
  /** The policy in force and the accept path's `inspect` port: with both, approvals are decided under it. */
  policy?: PolicyPort | undefined;
  inspect?: AcceptPorts['inspect'] | undefined;
  metrics?: PipelineMetrics;
  log?: Log;
  now?: () => number;
}

export interface ApprovalInput {
  decision: 'approve' | 'reject';
  /** The prepared transaction hash the approver saw (hex or base64). */
  hash: string;
  reason?: string | undefined;
}

export interface ApprovalResult {
  record: SubmissionRecord;
  /** True when this decision reached the quorum and this call signed and queued the submission. */
  signed: boolean;
}

const notFound = (id: string) => new SubmissionRefused(404, 'NOT_FOUND', `no submission ${echo(id)}`);

function overdue(rec: SubmissionRecord, now: number): boolean {
  const d = rec.approval?.deadline;
  return d !== null && d !== undefined && Date.parse(d) <= now;
}

const EXPIRED = {
  code: 'APPROVAL_EXPIRED',
  message: 'the approval deadline passed before the quorum was reached',
};

/** Moves an overdue awaiting record to expired; returns the record as it stands. */
export async function expireIfOverdue(store: SubmissionStore, rec: SubmissionRecord, now: number) {
  if (rec.status !== 'awaiting_approval' || !overdue(rec, now)) return rec;
  return store.update(rec.id, (r) => (r.status === 'awaiting_approval' ? expire(EXPIRED)(r) : undefined));
}

/** Every submission past its approval deadline, expired (the worker leader's sweep); returns how many it ended. */
export function expireOverdueApprovals(store: SubmissionStore, now: number, limit = 500): Promise<number> {
  return expireOverdue(store, 'awaiting_approval', (r) => expireIfOverdue(store, r, now), limit);
}

function approvedCount(r: SubmissionRecord): number {
  return (r.approvals ?? []).filter((a) => a.decision === 'approve').length;
}

/** The policy in force's outcome for a held submission, read when an approval arrives. */
interface InForce {
  version: number | null;
  rule: string | null;
  outcome: PolicyOutcome;
}

/**
 * Evaluates the policy in force against the stored transaction (decoded and hashed again, as accept did). Its
 * velocity does not count the submission itself: it is under way, so the party's window already holds it.
 */
async function policyInForce(deps: ApprovalDeps, rec: SubmissionRecord): Promise<InForce | undefined> {
  if (!deps.policy || !deps.inspect) return undefined;
  const current = await deps.policy.current();
  if (!current) return { version: null, rule: null, outcome: { action: 'allow' } };
  const stored = await deps.store.get(rec.id);
  if (!stored?.payload)
    throw new SubmissionRefused(409, 'CONFLICT', `submission ${rec.id} has no transaction`);
  const tx = await deps.inspect(stored.payload.preparedTransaction, rec.hashingSchemeVersion);
  if (Buffer.from(tx.hash).toString('hex') !== rec.preparedTransactionHash || !tx.facts)
    throw new Error(`submission ${rec.id}: its stored transaction no longer hashes to its hash`);
  const velocity = deps.policy.velocity;
  const now = deps.now ?? Date.now;
  const d = await evaluatePolicy(
    current.document,
    tx.facts(),
    velocity ? withoutItself(velocity, rec, now) : undefined,
  );
  return { version: current.version, rule: d.rule, outcome: d.outcome };
}

function withoutItself(lookup: VelocityLookup, rec: SubmissionRecord, now: () => number): VelocityLookup {
  return async (party, windowSeconds) => {
    const w = await lookup(party, windowSeconds);
    if (Date.parse(rec.createdAt) < now() - windowSeconds * 1000) return w;
    const instruments = { ...w.instruments };
    for (const o of rec.outflows ?? []) {
      const k = instrumentKey(o.instrument);
      const had = instruments[k];
      if (had) instruments[k] = { count: had.count - 1, amount: subtractDecimals(had.amount, o.amount) };
    }
    return { count: Math.max(0, w.count - 1), instruments };
  };
}

/**
 * Where an approved record goes under the policy in force: denied → rejected (POLICY_CHANGED); allowed, or its
 * quorum met by approvers it admits → accepted; otherwise it waits under the new requirement. Without a policy
 * port, the requirement it was held under decides, as before.
 */
function underPolicy(next: SubmissionRecord, p: InForce | undefined): SubmissionRecord {
  const held = next.approval;
  if (!p) return approvedCount(next) >= (held?.quorum ?? 1) ? { ...next, status: afterQuorum(next) } : next;
  const decided = held ? { ...held, decidedByPolicyVersion: p.version } : held;
  const o = p.outcome;
  if (o.action === 'deny') {
    return reject({
      code: 'POLICY_CHANGED',
      message: `the policy in force (version ${p.version}${p.rule !== null ? `, rule ${p.rule}` : ''}) denies it now: ${o.reason}`,
    })({ ...next, ...(decided ? { approval: decided } : {}) });
  }
  if (o.action === 'allow')
    return { ...next, status: afterQuorum(next), ...(decided ? { approval: decided } : {}) };
  const counted = (next.approvals ?? []).filter(
    (a) => a.decision === 'approve' && (!o.approvers || o.approvers.some((m) => samePerson(m, a.subject))),
  ).length;
  if (counted >= o.quorum)
    return { ...next, status: afterQuorum(next), ...(decided ? { approval: decided } : {}) };
  if (!held) return next;
  // Keeps waiting, under the requirement in force (its deadline stays).
  return {
    ...next,
    approval: {
      ...held,
      rule: p.rule,
      policyVersion: p.version,
      quorum: o.quorum,
      group: o.group,
      approvers: o.approvers,
    },
  };
}

/**
 * Where the quorum sends a record: `accepted` when the keys Quill holds in its signing set can meet the threshold
 * (signed at once, after this write), else `awaiting_signatures` (Quill signs with what it holds, the external
 * holders post the rest). An approval quorum and a signature threshold are two requirements: both must hold.
 */
function afterQuorum(r: SubmissionRecord): 'accepted' | 'awaiting_signatures' {
  const round = r.signatureRound;
  if (!round) return 'accepted';
  return round.keys.filter((k) => k.holder === 'quill').length >= round.threshold
    ? 'accepted'
    : 'awaiting_signatures';
}

const REFUSED = {
  self: () => new SubmissionRefused(403, 'SELF_APPROVAL', 'the submitter cannot decide its own submission'),
  notApprover: () =>
    new SubmissionRefused(403, 'NOT_AN_APPROVER', 'this subject is not in the approver group'),
  decided: () =>
    new SubmissionRefused(409, 'ALREADY_DECIDED', 'this subject already decided on this submission'),
  noReason: () =>
    new SubmissionRefused(400, 'REASON_REQUIRED', 'a rejection needs a reason: say why (non-blank text)'),
};

/**
 * Why `who` may not decide `rec` now (a refusal `decideApproval` would answer), or undefined when it may: not
 * awaiting approval, its submitter (the same person under any label), outside the approver group (`approvers`:
 * the record's own by default), or already decided. The role is the caller's to check (the approve role).
 */
export function decisionRefusal(
  who: Pick<Principal, 'subject'>,
  rec: SubmissionRecord,
  approvers: readonly string[] | null | undefined = rec.approval?.approvers,
): SubmissionRefused | undefined {
  try {
    notAwaiting(rec);
  } catch (err) {
    return err as SubmissionRefused;
  }
  if (samePerson(who.subject, rec.requestedBy)) return REFUSED.self();
  if (approvers && !approvers.some((m) => samePerson(m, who.subject))) return REFUSED.notApprover();
  if ((rec.approvals ?? []).some((a) => samePerson(a.subject, who.subject))) return REFUSED.decided();
  return undefined;
}

/**
 * Records one subject's decision on a submission awaiting approval. Refusals: 400 REASON_REQUIRED (a rejection
 * without a reason), 404 (unknown or another party's for a party-scoped principal), 409 HASH_MISMATCH, 409
 * NOT_AWAITING_APPROVAL, 409 APPROVAL_EXPIRED, 403 SELF_APPROVAL, 403 NOT_AN_APPROVER (the rule names a group),
 * 409 ALREADY_DECIDED.
 */
export async function decideApproval(
  deps: ApprovalDeps,
  who: Principal,
  id: string,
  input: ApprovalInput,
): Promise<ApprovalResult> {
  const now = deps.now ?? Date.now;
  const { store } = deps;
  // A rejection ends the submission for everyone: it says why (checked before anything is read).
  if (input.decision === 'reject' && !input.reason?.trim()) throw REFUSED.noReason();
  let rec = await store.getRecord(id);
  if (!rec || (who.party !== undefined && who.party !== rec.party)) throw notFound(id);
  const hash = parseHash(input.hash);
  if (hash !== rec.preparedTransactionHash) {
    throw new SubmissionRefused(
      409,
      'HASH_MISMATCH',
      `the hash does not match submission ${rec.id}'s prepared transaction hash ${rec.preparedTransactionHash}`,
    );
  }
  rec = await expireIfOverdue(store, rec, now());
  notAwaiting(rec);
  // People, not labels: alice's API token and her console OIDC session are one person (issue 29). The group
  // is checked below, under the policy in force.
  const early = decisionRefusal(who, rec, null);
  if (early) throw early;
  // Only an approval is decided under the policy in force; a rejection ends the submission whatever it says.
  const inForce = input.decision === 'approve' ? await policyInForce(deps, rec) : undefined;
  const approvers =
    inForce?.outcome.action === 'approve' ? inForce.outcome.approvers : rec.approval?.approvers;
  if (approvers && !approvers.some((m) => samePerson(m, who.subject))) throw REFUSED.notApprover();
  const reason = input.reason?.trim() ? input.reason.trim().slice(0, 500) : null;
  let planned: SubmissionRecord | undefined;
  const result = await store.transition(
    rec.id,
    (r) => {
      planned = undefined;
      if (r.status !== 'awaiting_approval' || overdue(r, now())) return undefined;
      if ((r.approvals ?? []).some((a) => samePerson(a.subject, who.subject))) throw REFUSED.decided();
      const approval: Approval = {
        subject: who.subject,
        decision: input.decision,
        reason,
        at: new Date(now()).toISOString(),
      };
      let next: SubmissionRecord = { ...r, approvals: [...(r.approvals ?? []), approval] };
      if (input.decision === 'reject') {
        next = reject({
          code: 'APPROVAL_REJECTED',
          message: `rejected by ${who.subject}${reason ? `: ${reason}` : ''}`,
        })(next);
      } else {
        next = underPolicy(next, inForce);
      }
      planned = next;
      return next;
    },
    undefined,
    () => ({
      kind: 'approval',
      at: new Date(now()).toISOString(),
      actor: who.subject,
      party: rec.party,
      submission: rec.id,
      hash: rec.preparedTransactionHash,
      decision: input.decision,
      reason: reason ?? '',
    }),
  );
  const mine = planned !== undefined && result.record === planned;
  if (!mine) {
    // Someone else's write moved it on (or it expired) before ours could apply.
    const cur = await expireIfOverdue(store, result.record, now());
    notAwaiting(cur);
    throw new SubmissionRefused(
      409,
      'CONFLICT',
      'the submission changed meanwhile: read it and decide again',
    );
  }
  deps.metrics?.approvalDecisions?.inc({ decision: input.decision });
  deps.log?.('info', 'approval decision', {
    submission: rec.id,
    subject: who.subject,
    decision: input.decision,
    status: result.record.status,
  });
  if (result.record.status !== 'accepted' && result.record.status !== 'awaiting_signatures')
    return { record: result.record, signed: false };
  return signOnQuorum(deps, rec, result, who.subject);
}

/**
 * A write that reached the quorum (the one whose compare-and-set moved it on) signs exactly once, here: with the
 * party's one key, or every key Quill holds in its signing set. An `accepted` record must then be fully signed
 * (else it ends rejected); a record `awaiting_signatures` keeps what Quill signed and waits for the external
 * holders (it is queued here only if they already posted enough meanwhile).
 */
async function signOnQuorum(
  deps: ApprovalDeps,
  rec: SubmissionRecord,
  result: VersionedStanding,
  actor: string,
): Promise<ApprovalResult> {
  const now = deps.now ?? Date.now;
  const { store } = deps;
  const created = Date.parse(rec.createdAt);
  if (Number.isFinite(created)) deps.metrics?.timeToQuorum?.observe((now() - created) / 1000);
  const round = result.record.signatureRound;
  const fingerprints = round
    ? round.keys.filter((k) => k.holder === 'quill').map((k) => k.fingerprint)
    : [rec.keyFingerprint];
  const threshold = round?.threshold ?? 1;
  const hash = Buffer.from(rec.preparedTransactionHash, 'hex');
  const audit = (sig: { signedBy: string }) => ({
    at: new Date(now()).toISOString(),
    actor,
    party: rec.party,
    keyFingerprint: sig.signedBy,
    hash: rec.preparedTransactionHash,
    commandId: rec.commandId,
    submission: rec.id,
    stored: 'true',
  });
  const rejectWith = async (code: string, message: string) => ({
    record: await store.update(rec.id, reject({ code, message })),
    signed: false,
  });
  let signatures: Awaited<ReturnType<typeof signWithQuillKeys>>;
  try {
    signatures = await signWithQuillKeys(deps.sign, fingerprints, hash, {
      'quill.submission.id': rec.id,
      'quill.approved': true,
    });
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    const code = err instanceof SubmissionRefused ? err.code : 'SIGNING_FAILED';
    const message =
      err instanceof SubmissionRefused && typeof e.message === 'string'
        ? e.message
        : 'signing failed after approval';
    return rejectWith(code, message);
  }
  for (const sig of signatures.signatures) deps.metrics?.signed.inc({ algorithm: sig.signingAlgorithmSpec });
  if (result.record.status === 'awaiting_signatures') {
    const added = await addToRound(deps, rec.id, signatures.signatures, audit);
    return { record: added.record, signed: added.reached };
  }
  const inSet = (fp: string) => fingerprints.includes(fp);
  if (distinctSigners(signatures.signatures, inSet).length < threshold) {
    const first = signatures.refusals[0];
    return rejectWith(first?.code ?? 'SIGNING_FAILED', first?.message ?? 'signing failed after approval');
  }
  const added = await addToRound(deps, rec.id, signatures.signatures, audit, 'accepted');
  if (!added.added) return { record: added.record, signed: false };
  await deps.enqueue(added.record);
  const from = await store.get(rec.id);
  const queued = await store.transition(rec.id, queue, from);
  return { record: queued.record, signed: true };
}

/** What a review of the waiting submissions did under a new policy version. */
export interface AwaitingReview {
  /** Denied by it: ended `rejected` (POLICY_CHANGED). */
  rejected: number;
  /** Their approvals already meet its requirement: signed and queued. */
  signed: number;
  /** Still waiting, under its requirement where it sends them to approval. */
  waiting: number;
}

/**
 * After a new policy version takes effect: every submission awaiting approval is evaluated under it at once, not
 * at its next approval. Denied → rejected (POLICY_CHANGED); sent to approval → waits under the new requirement, or
 * is signed when the approvals it has already meet it; allowed → keeps waiting (the next approval signs it: no
 * submission a person was asked to approve is signed without one).
 */
export async function reviewAwaiting(deps: ApprovalDeps, actor: string): Promise<AwaitingReview> {
  const now = deps.now ?? Date.now;
  const review: AwaitingReview = { rejected: 0, signed: 0, waiting: 0 };
  if (!deps.policy || !deps.inspect) return review;
  const ids: string[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await deps.store.list({
      status: 'awaiting_approval',
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    ids.push(...page.items.map((r) => r.id));
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  for (const id of ids) {
    const found = await deps.store.getRecord(id);
    const rec = found && (await expireIfOverdue(deps.store, found, now()));
    if (rec?.status !== 'awaiting_approval') continue;
    const inForce = await policyInForce(deps, rec);
    if (!inForce || inForce.outcome.action === 'allow') {
      review.waiting++;
      continue;
    }
    let planned: SubmissionRecord | undefined;
    const result = await deps.store.transition(
      id,
      (r) => {
        planned = undefined;
        if (r.status !== 'awaiting_approval' || overdue(r, now())) return undefined;
        const next = underPolicy(r, inForce);
        planned = canonicalJson(next) === canonicalJson(r) ? undefined : next;
        return planned;
      },
      undefined,
      (next) => ({
        kind: 'approval.review',
        at: new Date(now()).toISOString(),
        actor,
        party: rec.party,
        submission: rec.id,
        hash: rec.preparedTransactionHash,
        policyVersion: String(inForce.version ?? ''),
        status: next.status,
      }),
    );
    const mine = planned !== undefined && result.record === planned;
    if (mine && result.record.status === 'rejected') review.rejected++;
    else if (
      mine &&
      (result.record.status === 'accepted' || result.record.status === 'awaiting_signatures')
    ) {
      const done = await signOnQuorum(deps, rec, result, actor);
      if (done.signed) review.signed++;
    } else if (result.record.status === 'awaiting_approval') review.waiting++;
  }
  deps.log?.('info', 'awaiting submissions reviewed under the new policy', { ...review });
  return review;
}

type VersionedStanding = Awaited<ReturnType<SubmissionStore['transition']>>;

function notAwaiting(rec: SubmissionRecord): void {
  if (rec.status === 'awaiting_approval') return;
  if (rec.error?.code === 'APPROVAL_EXPIRED') {
    throw new SubmissionRefused(409, 'APPROVAL_EXPIRED', `submission ${rec.id} expired before its quorum`);
  }
  throw new SubmissionRefused(
    409,
    'NOT_AWAITING_APPROVAL',
    `submission ${rec.id} is ${rec.status}, not awaiting approval`,
  );
}

/**
 * What awaits approval, oldest first, for a principal (its party only when scoped; `party` narrows further).
 * Records past their deadline are expired on the way and left out.
 */
export async function listAwaiting(
  deps: Pick<ApprovalDeps, 'store' | 'now'>,
  who: Principal,
  party?: string,
  limit = 100,
): Promise<SubmissionRecord[]> {
  if (who.party !== undefined && party !== undefined && party !== who.party) return [];
  const scope = who.party ?? party;
  const now = (deps.now ?? Date.now)();
  const page = await deps.store.list({
    status: 'awaiting_approval',
    limit,
    ...(scope !== undefined ? { party: scope } : {}),
  });
  const out: SubmissionRecord[] = [];
  for (const r of page.items) {
    const cur = await expireIfOverdue(deps.store, r, now);
    if (cur.status === 'awaiting_approval') out.push(cur);
  }
  return out.reverse();
}
