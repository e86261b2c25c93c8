// Approvals: a card per submission awaiting approval (../approval.tsx: what it does in a sentence, the hash to sign,
// the rule and the quorum's progress, approve and reject as two forms, or why this operator may not decide), the
// message after a decision, and who decided what.
import { allows } from '../../auth/index.ts';
import { ApprovalCard, DecisionFlash } from '../approval.tsx';
import { readAudit } from '../audit-read.ts';
import { answer } from '../client.ts';
import type { ConsoleDeps } from '../deps.ts';
import { PageError } from '../errors.ts';
import { apiMessage, type Ctx, formFields, must } from '../http.tsx';
import { Empty, FormError, Id, Page, Time } from '../ui.tsx';
import { ID, submissionPage } from './submissions.tsx';

export async function approvalsPage(c: Ctx, deps: ConsoleDeps, form?: { id: string; error: string }) {
  const api = c.get('api');
  const viewer = c.get('viewer');
  const queue = must(await answer(api.wallet.v1.approvals.$get({ query: {} })), 'approvals');
  const previews = await Promise.all(
    queue.items.map((r) => answer(api.wallet.v1.submissions[':id'].preview.$get({ param: { id: r.id } }))),
  );
  const now = Date.now();
  // After a decision (POST, redirect, GET): the record it was made on, for the message saying what happened.
  const decided = c.req.query('decided');
  const flashed =
    decided && ID.test(decided)
      ? await answer(api.wallet.v1.submissions[':id'].$get({ param: { id: decided }, query: {} }))
      : undefined;
  // The newest 50 decisions among the newest 20,000 entries (a page view reads no more than that).
  const audit = allows(viewer.principal.role, 'admin')
    ? await readAudit(deps, viewer.principal, { want: 50, keep: (r) => r.kind === 'approval' })
    : undefined;
  const decisions = audit?.rows ?? [];
  return c.html(
    <Page title="Approvals" viewer={viewer} active="/console/approvals">
      <DecisionFlash viewer={viewer} rec={flashed?.status === 200 ? flashed.body : undefined} />
      {form && !queue.items.some((r) => r.id === form.id) && <FormError message={form.error} />}
      <section aria-labelledby="h-queue">
        <h2 id="h-queue">Awaiting approval</h2>
        <div data-live-list="approvals">
          {queue.items.length === 0 && <Empty>Nothing awaits approval.</Empty>}
          {queue.items.map((r, i) => {
            const res = previews[i];
            const pv = res?.status === 200 ? res.body : null;
            return (
              <ApprovalCard
                viewer={viewer}
                rec={r}
                keyStatus={r.keyStatus}
                pv={pv}
                error={form?.id === r.id ? form.error : undefined}
                now={now}
              />
            );
          })}
        </div>
      </section>
      {audit && (
        <section aria-labelledby="h-decided">
          <h2 id="h-decided">Latest decisions</h2>
          {decisions.length === 0 ? (
            <Empty>None yet.</Empty>
          ) : (
            <table data-testid="decisions">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Who</th>
                  <th scope="col">Decision</th>
                  <th scope="col">Submission</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {decisions.map((d) => (
                  <tr>
                    <td>
                      <Time at={d.fields.at} />
                    </td>
                    <td>{d.fields.actor}</td>
                    <td>{d.fields.decision}</td>
                    <td>
                      <Id
                        value={d.fields.submission ?? ''}
                        href={`/console/submissions/${d.fields.submission}`}
                      />
                    </td>
                    <td>{d.fields.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
    </Page>,
    form ? 400 : 200,
  );
}

/**
 * One decision, from a card of the Approvals page or from the submission page (`from`): the approve form sends a
 * `note`, the reject form a `reason` (the API refuses a rejection without one, 400 REASON_REQUIRED). Done, it
 * redirects back with `decided`, so the page says what happened; refused, the page comes back with the refusal
 * beside the forms.
 */
export async function decide(c: Ctx, deps: ConsoleDeps, id: string) {
  if (!ID.test(id)) throw new PageError(404, 'No submission: it does not exist or is not visible to you.');
  const f = await formFields(c);
  const fromSubmission = f.from === 'submission';
  const refused = (error: string) =>
    fromSubmission ? submissionPage(c, id, { error }) : approvalsPage(c, deps, { id, error });
  if (f.decision !== 'approve' && f.decision !== 'reject') return refused('Choose approve or reject.');
  const reason = (f.decision === 'approve' ? f.note : f.reason)?.trim() ?? '';
  if (reason.length > 500) return refused('Reason: at most 500 characters.');
  const res = await answer(
    c.get('api').wallet.v1.submissions[':id'].approvals.$post({
      param: { id },
      json: { decision: f.decision, hash: f.hash ?? '', ...(reason ? { reason } : {}) },
    }),
  );
  if (res.status >= 400 && res.status < 500 && res.status !== 404) return refused(apiMessage(res));
  must(res, 'submission');
  const back = fromSubmission ? `/console/submissions/${id}` : '/console/approvals';
  return c.redirect(`${back}?decided=${encodeURIComponent(id)}`, 303);
}
