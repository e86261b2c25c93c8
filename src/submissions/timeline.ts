// A submission's life as steps, read from its record alone: accepted (and held for approval), each decision,
// signed and queued, each attempt with its outcome, the searches of the ledger, and how it ended (or what it waits
// for). Served by GET /wallet/v1/submissions/{id}/timeline and drawn by the console's submission page.
import type { Attempt, SubmissionRecord } from './record.ts';
import { awaitedKeys, keyName, signedCount } from './round.ts';

export type TimelineStepKind =
  | 'accepted'
  | 'approval'
  | 'signed'
  | 'signature'
  | 'attempt'
  | 'searched'
  | 'committed'
  | 'rejected'
  | 'expired'
  | 'waiting';

export interface TimelineStep {
  kind: TimelineStepKind;
  /** When it happened (ISO 8601); null for what the record waits for now. */
  at: string | null;
  text: string;
  /** An attempt's outcome, a final step's code. */
  outcome?: Attempt['outcome'];
  code?: string;
}

/** Codes with which an approval ended a record before anything was signed. */
const UNSIGNED_ENDS: ReadonlySet<string> = new Set([
  'APPROVAL_REJECTED',
  'APPROVAL_EXPIRED',
  'POLICY_CHANGED',
]);

const OUTCOME_WORDS: Record<Attempt['outcome'], string> = {
  pending: 'sent, no answer yet',
  committed: 'committed',
  duplicate: 'already committed by an earlier attempt (found on the ledger)',
  rejected: 'refused by the ledger',
  retryable: 'refused for now (retried)',
  ambiguous: 'no answer (it may have committed)',
};

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

function accepted(rec: SubmissionRecord): TimelineStep {
  const a = rec.approval;
  const r = rec.signatureRound;
  const threshold = r ? `; its party signs ${r.threshold} of ${r.keys.length} keys` : '';
  const held = a
    ? `; held for approval: ${a.rule ? `rule "${a.rule}" ` : ''}needs ${plural(a.quorum, 'approval')}${a.group ? ` from ${a.group}` : ''}${a.policyVersion !== null ? ` (policy version ${a.policyVersion})` : ''}${threshold}`
    : r
      ? threshold
      : '; signed and queued';
  return { kind: 'accepted', at: rec.createdAt, text: `Accepted from ${rec.requestedBy}${held}` };
}

function decisions(rec: SubmissionRecord): TimelineStep[] {
  return (rec.approvals ?? []).map((d) => ({
    kind: 'approval',
    at: d.at,
    text: `${d.subject} ${d.decision === 'approve' ? 'approved' : 'rejected'}${d.reason ? `: ${d.reason}` : ''}`,
  }));
}

/** After approvals: signed and queued when the quorum was met (at the last approval), unless it ended unsigned. */
function signedAfterApproval(rec: SubmissionRecord): TimelineStep[] {
  if (!rec.approval || rec.status === 'awaiting_approval') return [];
  if (rec.error && UNSIGNED_ENDS.has(rec.error.code)) return [];
  const last = [...(rec.approvals ?? [])].reverse().find((d) => d.decision === 'approve');
  const text = rec.signatureRound
    ? "Quorum reached: signed with Quill's keys"
    : 'Quorum reached: signed and queued';
  return [{ kind: 'signed', at: last?.at ?? rec.createdAt, text }];
}

/** Each key of the signing set that signed, when (a round's record only). */
function roundSignatures(rec: SubmissionRecord): TimelineStep[] {
  return (rec.signatureRound?.keys ?? []).flatMap((k) =>
    k.signedAt === null
      ? []
      : [
          {
            kind: 'signature' as const,
            at: k.signedAt,
            text: `Signed by ${keyName(k)}${k.holder === 'external' ? ', an external holder' : ', held by Quill'}`,
          },
        ],
  );
}

function attempts(rec: SubmissionRecord): TimelineStep[] {
  return rec.attempts.map((a, i) => ({
    kind: 'attempt',
    at: a.startedAt,
    outcome: a.outcome,
    text: `Attempt ${i + 1} (deduplication ${a.deduplicationSeconds} s): ${OUTCOME_WORDS[a.outcome]}${a.error ? ` — ${a.error.code}` : ''}`,
  }));
}

function searched(rec: SubmissionRecord): TimelineStep[] {
  if (!rec.searchedAt || rec.status === 'committed') return [];
  const through =
    rec.reconciledThroughOffset !== null ? ` through offset ${rec.reconciledThroughOffset}` : '';
  return [{ kind: 'searched', at: rec.searchedAt, text: `Searched the ledger${through}: not found` }];
}

function end(rec: SubmissionRecord): TimelineStep {
  switch (rec.status) {
    case 'committed':
      return {
        kind: 'committed',
        at: rec.updatedAt,
        text: `Committed at offset ${rec.completionOffset ?? '?'} as update ${rec.updateId ?? '?'}`,
      };
    case 'rejected':
    case 'expired':
      return {
        kind: rec.status,
        at: rec.updatedAt,
        text: `${rec.status === 'rejected' ? 'Rejected' : 'Expired'}: ${rec.error?.code ?? 'no code'}`,
        ...(rec.error ? { code: rec.error.code } : {}),
      };
    case 'awaiting_approval': {
      const a = rec.approval;
      const approvals = (rec.approvals ?? []).filter((d) => d.decision === 'approve').length;
      const left = Math.max(0, (a?.quorum ?? 1) - approvals);
      return {
        kind: 'waiting',
        at: null,
        text: `Waiting for ${plural(left, 'more approval')}${a?.deadline ? ` until ${a.deadline}` : ''}`,
      };
    }
    case 'awaiting_signatures': {
      const r = rec.signatureRound;
      const left = Math.max(0, (r?.threshold ?? 1) - (r ? signedCount(r) : 0));
      const awaited = r ? awaitedKeys(r).map(keyName).join(', ') : '';
      return {
        kind: 'waiting',
        at: null,
        text: `Waiting for ${plural(left, 'more signature')} (${r ? signedCount(r) : 0} of ${r?.threshold ?? 1})${r?.deadline ? ` until ${r.deadline}` : ''}: awaiting ${awaited || 'no key'}`,
      };
    }
    case 'accepted':
    case 'queued':
      return { kind: 'waiting', at: null, text: 'Queued: waiting for a worker to send it' };
    case 'executing':
      if (rec.error?.code === 'OUTCOME_UNKNOWN')
        return {
          kind: 'waiting',
          at: null,
          code: 'OUTCOME_UNKNOWN',
          text: `Outcome unknown: the ledger is searched until ${rec.canCommitUntil ?? 'the commit deadline'}; it ends committed if found, expired after`,
        };
      return {
        kind: 'waiting',
        at: null,
        text:
          rec.attempts.at(-1)?.outcome === 'pending'
            ? `Sending: attempt ${rec.attempts.length} is on its way`
            : `Retrying: attempt ${rec.attempts.length + 1} is sent after a pause`,
      };
  }
}

/** The record's steps, oldest first, with what it waits for (or how it ended) last. */
export function timeline(rec: SubmissionRecord): TimelineStep[] {
  const steps = [
    ...decisions(rec),
    ...signedAfterApproval(rec),
    ...roundSignatures(rec),
    ...attempts(rec),
    ...searched(rec),
  ].sort((x, y) => (x.at ?? '').localeCompare(y.at ?? ''));
  return [accepted(rec), ...steps, end(rec)];
}
