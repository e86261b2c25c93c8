// One approval, as the Approvals page's card and the submission page show it (issue 30 items 1 and 2): the sentence
// saying what is being approved (from the preview whose hash Quill recomputed), the rule and the quorum's progress,
// then the decisions this operator may make, each in a form of its own. The approve form has no single-line field
// (its note is a textarea), so Enter never approves; Enter in the reject form's required reason rejects. A decision
// the operator may not make is not offered, and a line says why.
import type { InferResponseType } from 'hono/client';
import { allows, samePerson } from '../auth/index.ts';
import { decisionRefusal } from '../submissions/index.ts';
import type { Api } from './client.ts';
import { Csrf, FormError, Id, short, Template, Time, type Viewer } from './ui.tsx';

type SubmissionsApi = Api['wallet']['v1']['submissions'][':id'];
/** A submission record as the API answers it. */
export type Rec = InferResponseType<SubmissionsApi['$get'], 200>;
/** The preview of its stored transaction (hash recomputed now). */
export type Preview = InferResponseType<SubmissionsApi['preview']['$get'], 200>;
/** The key that would sign it: `null` when the wallet cannot tell. */
export type KeyStatus = 'active' | 'disabled' | 'missing' | null;

/** "3 h 41 min left", "12 min left", "2 d 4 h left"; "past its deadline" once it passed. */
export function timeLeft(deadline: string, now: number): string {
  const ms = Date.parse(deadline) - now;
  if (Number.isNaN(ms)) return '';
  if (ms <= 0) return 'past its deadline';
  const min = Math.floor(ms / 60_000);
  if (min < 1) return 'under a minute left';
  const d = Math.floor(min / 1440);
  const h = Math.floor((min % 1440) / 60);
  const m = min % 60;
  if (d > 0) return `${d} d ${h} h left`;
  return h > 0 ? `${h} h ${m} min left` : `${m} min left`;
}

/** "1 of 2 · alice ✓ · needs 1 more from treasury · 3 h 41 min left". */
export function quorumProgress(rec: Rec, now: number): string {
  const approved = (rec.approvals ?? []).filter((a) => a.decision === 'approve');
  const quorum = rec.approval?.quorum ?? 1;
  const parts = [`${approved.length} of ${quorum}`, ...approved.map((a) => `${a.subject} ✓`)];
  const more = quorum - approved.length;
  if (more > 0) parts.push(`needs ${more} more${rec.approval?.group ? ` from ${rec.approval.group}` : ''}`);
  if (rec.approval?.deadline && rec.status === 'awaiting_approval')
    parts.push(timeLeft(rec.approval.deadline, now));
  return parts.join(' · ');
}

/** Why this operator may not approve, and why not reject (undefined: offered). */
export function whyNot(
  viewer: Viewer,
  rec: Rec,
  keyStatus: KeyStatus,
  pv: Preview | null,
): { approve?: string; reject?: string } {
  const who = viewer.principal;
  if (!allows(who.role, 'approve')) {
    const why = `Your role (${who.role}) cannot decide approvals.`;
    return { approve: why, reject: why };
  }
  const refused = decisionRefusal(who, rec);
  if (refused) {
    const mine = (rec.approvals ?? []).find((a) => samePerson(a.subject, who.subject));
    const why =
      refused.code === 'SELF_APPROVAL'
        ? 'You submitted it: someone else must decide (four eyes).'
        : refused.code === 'NOT_AN_APPROVER'
          ? `Only the ${rec.approval?.group ?? 'approver'} group decides it, and you are not in it.`
          : refused.code === 'ALREADY_DECIDED'
            ? `You already ${mine?.decision === 'reject' ? 'rejected' : 'approved'} it.`
            : `It is no longer awaiting approval (${rec.status}).`;
    return { approve: why, reject: why };
  }
  if (keyStatus === 'disabled' || keyStatus === 'missing')
    return {
      approve: `Its key ${short(rec.keyFingerprint, 12)} is ${keyStatus}: an approval could not sign it. Reject it, or let it expire.`,
    };
  if (pv?.hashMatches === false)
    return {
      approve: 'Its stored transaction no longer hashes to the hash on record: do not approve it. Reject it.',
    };
  if (pv && pv.recomputedHash === null)
    return { approve: 'Its transaction is no longer stored, so what it does cannot be shown: reject it.' };
  return {};
}

/** What is being approved, one sentence per asset movement, from the preview whose hash was recomputed. */
export function Sentence(p: { pv: Preview | null; rec: Rec }) {
  const checked = p.pv?.hashMatches === true && p.pv.summary;
  const lines = checked || p.rec.approval?.summary;
  if (!lines || lines.length === 0)
    return (
      <p class="sentence bad" data-testid="sentence">
        What it does cannot be shown: its stored transaction is gone or no longer matches its hash.
      </p>
    );
  const note = checked ? null : ' (as read when it was accepted: the transaction could not be checked now)';
  return lines.length === 1 ? (
    <p class="sentence" data-testid="sentence">
      {lines[0]}
      {note}
    </p>
  ) : (
    <ul class="sentence" data-testid="sentence">
      {lines.map((l) => (
        <li>{l}</li>
      ))}
      {note && <li>{note}</li>}
    </ul>
  );
}

/** The hash an approval names: the one on record, marked as recomputed and matching (or not). */
export function HashToSign(p: { pv: Preview | null; rec: Rec }) {
  const ok = p.pv?.hashMatches === true;
  return (
    <p class="hash">
      Hash to sign (recomputed){' '}
      <span class={`mono wrap ${ok ? 'ok' : 'bad'}`} data-testid="hash-to-sign">
        {p.pv?.recomputedHash ?? p.rec.preparedTransactionHash}{' '}
        {ok ? '✓ matches' : p.pv?.recomputedHash ? '✗ DOES NOT MATCH the hash on record' : '(not recomputed)'}
      </span>
    </p>
  );
}

/** The rule, quorum progress, decisions so far and this operator's forms (or why there are none). */
export function Decide(p: {
  viewer: Viewer;
  rec: Rec;
  keyStatus: KeyStatus;
  pv: Preview | null;
  /** Where the decision was made: the redirect comes back there. */
  from: 'approvals' | 'submission';
  error?: string | undefined;
  now: number;
}) {
  const { rec, viewer } = p;
  const why = whyNot(viewer, rec, p.keyStatus, p.pv);
  const action = `/console/approvals/${rec.id}`;
  const Hidden = (h: { decision: string }) => (
    <>
      <Csrf viewer={viewer} />
      <input type="hidden" name="hash" value={rec.preparedTransactionHash} />
      <input type="hidden" name="decision" value={h.decision} />
      <input type="hidden" name="from" value={p.from} />
    </>
  );
  return (
    <div class="decide">
      <p>
        Rule <strong data-testid="rule">{rec.approval?.rule ?? '(default)'}</strong> (policy version{' '}
        {rec.approval?.policyVersion ?? '?'}) · asked by {rec.requestedBy} · <Time at={rec.createdAt} />
        {rec.approval?.deadline ? (
          <>
            {' '}
            · decide before <Time at={rec.approval.deadline} />
          </>
        ) : null}
      </p>
      <p class="progress" data-testid="progress">
        {quorumProgress(rec, p.now)}
      </p>
      {(rec.approvals ?? []).length > 0 && (
        <ul class="decisions">
          {(rec.approvals ?? []).map((a) => (
            <li>
              {a.subject} {a.decision === 'approve' ? 'approved' : 'rejected'} at <Time at={a.at} />
              {a.reason ? `: ${a.reason}` : ''}
            </li>
          ))}
        </ul>
      )}
      {why.approve && why.approve === why.reject ? (
        <p class="why" data-testid="why-not">
          {why.approve}
        </p>
      ) : (
        <div class="forms">
          {why.approve ? (
            <p class="why" data-testid="why-not">
              {why.approve}
            </p>
          ) : (
            <form method="post" action={action} class="approve" aria-label={`Approve ${rec.id}`}>
              <Hidden decision="approve" />
              <label>
                Note (optional)
                <textarea name="note" maxlength={500} rows={2} />
              </label>
              <button type="submit">Approve</button>
            </form>
          )}
          {!why.reject && (
            <form method="post" action={action} class="reject" aria-label={`Reject ${rec.id}`}>
              <Hidden decision="reject" />
              <label>
                Reason (required to reject)
                <input
                  name="reason"
                  required
                  maxlength={500}
                  pattern=".*\S.*"
                  title="Say why it is rejected"
                  autocomplete="off"
                />
              </label>
              <button type="submit" class="danger">
                Reject
              </button>
            </form>
          )}
        </div>
      )}
      <FormError message={p.error} />
    </div>
  );
}

/** After a decision (POST, redirect, GET): what this operator did and what became of the record. */
export function DecisionFlash(p: { viewer: Viewer; rec: Rec | undefined }) {
  const rec = p.rec;
  const mine = rec?.approvals?.find((a) => samePerson(a.subject, p.viewer.principal.subject));
  if (!rec || !mine) return null;
  const approved = (rec.approvals ?? []).filter((a) => a.decision === 'approve').length;
  const quorum = rec.approval?.quorum ?? 1;
  const after =
    mine.decision === 'reject'
      ? rec.status === 'rejected'
        ? 'it is rejected and will not be signed'
        : `it is ${rec.status}`
      : rec.status === 'awaiting_approval'
        ? `${approved} of ${quorum}, needs ${quorum - approved} more`
        : rec.status === 'awaiting_signatures'
          ? `${approved} of ${quorum}, signed with Quill's keys and waiting for the external key holders' signatures`
          : rec.status === 'rejected' || rec.status === 'expired'
            ? `${approved} of ${quorum}, but it ended ${rec.status}${rec.error ? ` (${rec.error.code}: ${rec.error.message})` : ''}`
            : rec.status === 'committed'
              ? `${approved} of ${quorum}, signed and committed`
              : `${approved} of ${quorum}, signed and queued for the ledger`;
  return (
    <p class="flash" role="status" data-testid="flash">
      You {mine.decision === 'reject' ? 'rejected' : 'approved'}{' '}
      <Id value={rec.id} href={`/console/submissions/${rec.id}`} />: {after}.
    </p>
  );
}

/** The card of one submission awaiting approval (Approvals page). */
export function ApprovalCard(p: {
  viewer: Viewer;
  rec: Rec;
  keyStatus: KeyStatus;
  pv: Preview | null;
  error?: string | undefined;
  now: number;
}) {
  const { rec, pv } = p;
  const tx = pv?.preview;
  return (
    <article class="approval" data-id={rec.id} aria-label={`Submission ${rec.id}`}>
      <h3>
        <Id value={rec.id} href={`/console/submissions/${rec.id}`} />
      </h3>
      <Sentence pv={pv} rec={rec} />
      <p>
        Party <Id value={rec.party} /> · key <Id value={rec.keyFingerprint} />
      </p>
      {tx && (
        <details class="actions">
          <summary>
            {tx.nodes.length} action{tx.nodes.length === 1 ? '' : 's'}
          </summary>
          <ul class="actions" aria-label="Actions">
            {tx.nodes.map((n) => (
              <li>
                {n.kind} <Template templateId={n.templateId} packageName={n.packageName} /> {n.choice ?? ''}
              </li>
            ))}
          </ul>
        </details>
      )}
      <HashToSign pv={pv} rec={rec} />
      <Decide
        viewer={p.viewer}
        rec={rec}
        keyStatus={p.keyStatus}
        pv={pv}
        from="approvals"
        error={p.error}
        now={p.now}
      />
    </article>
  );
}
