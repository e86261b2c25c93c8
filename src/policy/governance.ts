// Governed policy changes (issue 29): while the policy in force has `policyGovernance`, a new document is a
// proposal that takes effect only when a quorum of distinct admins of the governance group approves it, each bound
// to the document's hash. Every step (proposed, approved, rejected, closed) is one compare-and-set Lua step with
// its audit entry; the step that reaches the quorum also makes the document the next version, and only if the
// version it was proposed against is still current (a change never silently undoes one made meanwhile).
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { auditFields } from '../audit/index.ts';
import { type Principal, samePerson } from '../auth/index.ts';
import { canonicalJson } from '../json.ts';
import { loadScript, type RedisKeys, redisFailed, redisKeys, runScript } from '../redis/index.ts';
import { PolicyRefused } from './errors.ts';
import type { PolicyDocument } from './schema.ts';
import { type PolicyStore, type PolicyVersion, policyEntry, policyHash } from './store.ts';

export type ProposalStatus = 'pending' | 'applied' | 'rejected' | 'superseded' | 'expired';

export interface ProposalDecision {
  subject: string;
  decision: 'approve' | 'reject';
  reason: string | null;
  at: string;
}

export interface PolicyProposal {
  id: string;
  status: ProposalStatus;
  /** SHA-256 of the document's canonical JSON: what each approval names. */
  documentHash: string;
  document: PolicyDocument;
  /** The version it was proposed against (0: there was none); it applies only while that one is current. */
  baseVersion: number;
  proposedBy: string;
  proposedAt: string;
  expiresAt: string;
  /** The governance in force when it was proposed (the base version's). */
  quorum: number;
  group: string;
  decisions: ProposalDecision[];
  /** The version it became (applied), and when and why it closed otherwise. */
  appliedVersion?: number;
  closedAt?: string;
  closedReason?: string;
}

/** Governance of a policy in force; undefined when one admin's change takes effect at once. */
export function governanceOf(current: PolicyVersion | undefined) {
  return current?.document.policyGovernance;
}

const DEFAULT_TTL_SECONDS = 7 * 86400;
const STEP = loadScript('policy-proposal');

export interface ProposalInput {
  decision: 'approve' | 'reject';
  /** The document hash the admin saw. */
  hash: string;
  reason?: string | undefined;
}

/** The outcome of a proposal or decision: the proposal as stored, and the version it became when it applied. */
export interface ProposalStep {
  proposal: PolicyProposal;
  applied?: PolicyVersion;
}

export class PolicyProposals {
  readonly #keys: RedisKeys;
  readonly #redis: Redis;
  constructor(
    private readonly store: PolicyStore,
    private readonly now: () => number = Date.now,
  ) {
    this.#redis = store.redis;
    this.#keys = redisKeys(store.prefix);
  }

  /** Every proposal, newest first, with overdue pending ones shown as expired (closed on their next step). */
  async list(): Promise<PolicyProposal[]> {
    const all = await this.#redis.hvals(this.#keys.policyProposals).catch(redisFailed);
    return all
      .map((raw) => this.#asSeen(JSON.parse(raw) as PolicyProposal))
      .sort((a, b) => (a.proposedAt < b.proposedAt ? 1 : a.proposedAt > b.proposedAt ? -1 : 0));
  }

  async get(id: string): Promise<PolicyProposal | undefined> {
    const raw = await this.#read(id);
    return raw ? this.#asSeen(JSON.parse(raw) as PolicyProposal) : undefined;
  }

  /**
   * Files `document` as a proposal under the governance of the version in force. Refuses 409 NOT_GOVERNED when
   * there is none (the change is then a plain new version).
   */
  async propose(document: PolicyDocument, by: string): Promise<PolicyProposal> {
    const current = await this.store.current();
    const gov = governanceOf(current);
    if (!gov) throw new PolicyRefused(409, 'NOT_GOVERNED', 'the policy in force has no policyGovernance');
    const at = new Date(this.now());
    const proposal: PolicyProposal = {
      id: `pp-${at.getTime().toString(36)}-${randomBytes(4).toString('hex')}`,
      status: 'pending',
      documentHash: policyHash(document),
      document,
      baseVersion: current?.version ?? 0,
      proposedBy: by,
      proposedAt: at.toISOString(),
      expiresAt: new Date(at.getTime() + (gov.ttl ?? DEFAULT_TTL_SECONDS) * 1000).toISOString(),
      quorum: gov.quorum,
      group: gov.group,
      decisions: [],
    };
    const r = await this.#step(proposal.id, '', proposal, {
      kind: 'policy.propose',
      at: proposal.proposedAt,
      actor: by,
      proposal: proposal.id,
      document: proposal.documentHash,
      baseVersion: String(proposal.baseVersion),
    });
    if (r === 'CHANGED') throw new PolicyRefused(409, 'CONFLICT', 'proposal id taken: try again');
    return proposal;
  }

  /**
   * One admin's decision. Refusals: 400 REASON_REQUIRED (a rejection without one), 404 NOT_FOUND, 409 HASH_MISMATCH, 409 PROPOSAL_CLOSED, 409 PROPOSAL_EXPIRED,
   * 409 PROPOSAL_STALE (another version became current: the proposal is superseded), 403 SELF_APPROVAL (the
   * proposer approving; it may reject, which withdraws it), 403 NOT_AN_APPROVER (not in the governance group),
   * 409 ALREADY_DECIDED. The approval that reaches the quorum applies the document.
   */
  async decide(who: Principal, id: string, input: ProposalInput): Promise<ProposalStep> {
    if (input.decision === 'reject' && !input.reason?.trim()) {
      throw new PolicyRefused(400, 'REASON_REQUIRED', 'a rejection needs a reason');
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const raw = await this.#read(id);
      if (!raw) throw new PolicyRefused(404, 'NOT_FOUND', `no policy proposal ${id}`);
      const p = JSON.parse(raw) as PolicyProposal;
      if (input.hash.trim().toLowerCase() !== p.documentHash) {
        throw new PolicyRefused(
          409,
          'HASH_MISMATCH',
          `the hash does not match proposal ${p.id}'s document hash ${p.documentHash}`,
        );
      }
      const at = new Date(this.now()).toISOString();
      if (p.status !== 'pending') throw closed(p);
      const current = await this.store.current();
      const lapse = this.#lapse(p, current?.version ?? 0);
      if (lapse) {
        const ended = { ...p, status: lapse.status, closedAt: at, closedReason: lapse.reason };
        const r = await this.#step(p.id, raw, ended, {
          kind: 'policy.close',
          at,
          actor: who.subject,
          proposal: p.id,
          status: lapse.status,
          reason: lapse.reason,
        });
        if (r === 'CHANGED') continue;
        throw closed(ended);
      }
      const proposer = samePerson(who.subject, p.proposedBy);
      if (input.decision === 'approve' && proposer) {
        throw new PolicyRefused(403, 'SELF_APPROVAL', 'the proposer cannot approve its own proposal');
      }
      const members = current?.document.groups[p.group] ?? [];
      if (!proposer && !members.some((m) => samePerson(m, who.subject))) {
        throw new PolicyRefused(
          403,
          'NOT_AN_APPROVER',
          `only members of group ${p.group} decide policy changes`,
        );
      }
      if (p.decisions.some((d) => samePerson(d.subject, who.subject))) {
        throw new PolicyRefused(409, 'ALREADY_DECIDED', 'this subject already decided on this proposal');
      }
      const reason = input.reason?.trim() ? input.reason.trim().slice(0, 500) : null;
      const decisions = [...p.decisions, { subject: who.subject, decision: input.decision, reason, at }];
      const approvals = decisions.filter((d) => d.decision === 'approve').length;
      const next: PolicyProposal =
        input.decision === 'reject'
          ? {
              ...p,
              decisions,
              status: 'rejected',
              closedAt: at,
              closedReason: `${proposer ? 'withdrawn' : 'rejected'} by ${who.subject}${reason ? `: ${reason}` : ''}`,
            }
          : approvals >= p.quorum
            ? { ...p, decisions, status: 'applied', closedAt: at, appliedVersion: p.baseVersion + 1 }
            : { ...p, decisions };
      const entry = {
        kind: `policy.${input.decision}`,
        at,
        actor: who.subject,
        proposal: p.id,
        document: p.documentHash,
        reason: reason ?? '',
      };
      const apply = next.status === 'applied';
      const r = await this.#step(p.id, raw, next, entry, apply ? { at, by: p.proposedBy } : undefined);
      if (r === 'CHANGED') continue;
      if (r === 'STALE') continue; // the next read closes it as superseded
      if (!apply) return { proposal: next };
      return {
        proposal: next,
        applied: { version: r, at, by: p.proposedBy, document: p.document },
      };
    }
    throw new PolicyRefused(409, 'CONFLICT', 'the proposal changed meanwhile: read it and decide again');
  }

  /** Why a pending proposal can no longer apply: past its deadline, or proposed against another version. */
  #lapse(p: PolicyProposal, current: number): { status: ProposalStatus; reason: string } | undefined {
    if (Date.parse(p.expiresAt) <= this.now()) {
      return { status: 'expired', reason: 'the quorum was not reached before its deadline' };
    }
    if (p.baseVersion !== current) {
      return {
        status: 'superseded',
        reason: `version ${current} became current after it was proposed against version ${p.baseVersion}`,
      };
    }
    return undefined;
  }

  /** How a stored proposal reads now: a pending one past its deadline is expired (written at its next step). */
  #asSeen(p: PolicyProposal): PolicyProposal {
    if (p.status === 'pending' && Date.parse(p.expiresAt) <= this.now()) {
      return { ...p, status: 'expired', closedAt: p.expiresAt, closedReason: 'the deadline passed' };
    }
    return p;
  }

  #read(id: string): Promise<string | null> {
    return this.#redis.hget(this.#keys.policyProposals, id).catch(redisFailed);
  }

  async #step(
    id: string,
    expected: string,
    next: PolicyProposal,
    entry: Record<string, string>,
    apply?: { at: string; by: string },
  ): Promise<'CHANGED' | 'STALE' | number> {
    const k = this.#keys;
    const fields = auditFields(entry);
    const tail = apply
      ? [
          JSON.stringify(next.document),
          apply.at,
          apply.by,
          String(next.baseVersion),
          ...policyEntry(next.document, apply.at, apply.by, next.id),
        ]
      : [];
    return (await runScript(
      this.#redis,
      STEP,
      [k.policyProposals, k.policySequence, k.policyCurrent, k.policyVersions, k.audit, k.auditHead],
      [id, expected, JSON.stringify(next), fields.length, ...fields, ...tail],
    ).catch(redisFailed)) as 'CHANGED' | 'STALE' | number;
  }
}

function closed(p: PolicyProposal): PolicyRefused {
  if (p.status === 'expired')
    return new PolicyRefused(409, 'PROPOSAL_EXPIRED', `proposal ${p.id} expired before its quorum`);
  if (p.status === 'superseded')
    return new PolicyRefused(
      409,
      'PROPOSAL_STALE',
      `proposal ${p.id} is superseded: ${p.closedReason ?? ''}`,
    );
  return new PolicyRefused(409, 'PROPOSAL_CLOSED', `proposal ${p.id} is ${p.status}, not pending`);
}

/**
 * At start, the policy file: made current when it differs and the policy in force is not governed; under
 * governance, filed as a proposal (once per document) instead, since a file must not bypass the quorum.
 */
export async function seedPolicy(
  store: PolicyStore,
  proposals: PolicyProposals,
  document: PolicyDocument,
  by: string,
): Promise<{ version?: PolicyVersion; proposal?: PolicyProposal }> {
  const current = await store.current();
  if (current && canonicalJson(current.document) === canonicalJson(document)) return { version: current };
  if (!governanceOf(current)) return { version: await store.put(document, by) };
  const hash = policyHash(document);
  const open = (await proposals.list()).find((p) => p.status === 'pending' && p.documentHash === hash);
  return { proposal: open ?? (await proposals.propose(document, by)) };
}
