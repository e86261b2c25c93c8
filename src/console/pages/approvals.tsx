// Approvals: what awaits approval (with the preview of what would be signed and the rule that matched), approve or
// reject with a reason (the decision names the hash the approver saw), and who decided what.
import { allows } from '../../auth/index.ts';
import { readAudit } from '../audit-read.ts';
import { answer } from '../client.ts';
import type { ConsoleDeps } from '../deps.ts';
import { PageError } from '../errors.ts';
import { apiMessage, type Ctx, formFields, must } from '../http.tsx';
import { Csrf, Empty, FormError, Id, Page, Time } from '../ui.tsx';

export async function approvalsPage(c: Ctx, deps: ConsoleDeps, form?: { id: string; error: string }) {
  const api = c.get('api');
  const viewer = c.get('viewer');
  const queue = must(await answer(api.wallet.v1.approvals.$get({ query: {} })), 'approvals');
  const previews = await Promise.all(
    queue.items.map((r) => answer(api.wallet.v1.submissions[':id'].preview.$get({ param: { id: r.id } }))),
  );
  const canDecide = allows(viewer.principal.role, 'approve');
  // The newest 50 decisions among the newest 20,000 entries (a page view reads no more than that).
  const audit = allows(viewer.principal.role, 'admin')
    ? await readAudit(deps, viewer.principal, { want: 50, keep: (r) => r.kind === 'approval' })
    : undefined;
  const decisions = audit?.rows ?? [];
  return c.html(
    <Page title="Approvals" viewer={viewer} active="/console/approvals">
      <section aria-labelledby="h-queue">
        <h2 id="h-queue">Awaiting approval</h2>
        {queue.items.length === 0 ? (
          <Empty>Nothing awaits approval.</Empty>
        ) : (
          queue.items.map((r, i) => {
            const res = previews[i];
            const pv = res?.status === 200 ? res.body.preview : null;
            return (
              <article class="approval" data-id={r.id} aria-label={`Submission ${r.id}`}>
                <h3>
                  <Id value={r.id} href={`/console/submissions/${r.id}`} />
                </h3>
                {r.approval?.summary && (
                  <ul class="summary" aria-label="What it does">
                    {r.approval.summary.map((line) => (
                      <li>{line}</li>
                    ))}
                  </ul>
                )}
                <p>
                  Party <Id value={r.party} /> · asked by {r.requestedBy} · <Time at={r.createdAt} />
                </p>
                <p>
                  Rule <strong data-testid="rule">{r.approval?.rule ?? '(default)'}</strong> (policy version{' '}
                  {r.approval?.policyVersion ?? '?'}), quorum {r.approval?.quorum ?? 1}
                  {r.approval?.group ? `, group ${r.approval.group}` : ''}
                  {r.approval?.deadline ? (
                    <>
                      , decide before <Time at={r.approval.deadline} />
                    </>
                  ) : null}
                </p>
                {pv && (
                  <ul class="actions">
                    {pv.nodes.map((n) => (
                      <li>
                        {n.kind} <span class="mono">{n.packageName ?? ''}</span>{' '}
                        <span class="mono">{n.templateId ?? ''}</span> {n.choice ?? ''}
                      </li>
                    ))}
                  </ul>
                )}
                <p class="mono wrap">hash {r.preparedTransactionHash}</p>
                {(r.approvals ?? []).map((a) => (
                  <p>
                    {a.subject} {a.decision === 'approve' ? 'approved' : 'rejected'}
                    {a.reason ? `: ${a.reason}` : ''}
                  </p>
                ))}
                {canDecide && (
                  <form method="post" action={`/console/approvals/${r.id}`} class="inline">
                    <Csrf viewer={viewer} />
                    <input type="hidden" name="hash" value={r.preparedTransactionHash} />
                    <label>
                      Reason
                      <input name="reason" maxlength={500} />
                    </label>
                    <button type="submit" name="decision" value="approve">
                      Approve
                    </button>
                    <button type="submit" name="decision" value="reject" class="danger">
                      Reject
                    </button>
                    {form?.id === r.id && <FormError message={form.error} />}
                  </form>
                )}
              </article>
            );
          })
        )}
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

export async function decide(c: Ctx, deps: ConsoleDeps, id: string) {
  if (!/^[\w-]{1,100}$/.test(id))
    throw new PageError(404, 'No submission: it does not exist or is not visible to you.');
  const f = await formFields(c);
  if (f.decision !== 'approve' && f.decision !== 'reject')
    return approvalsPage(c, deps, { id, error: 'Choose approve or reject.' });
  if ((f.reason ?? '').length > 500)
    return approvalsPage(c, deps, { id, error: 'Reason: at most 500 characters.' });
  const res = await answer(
    c.get('api').wallet.v1.submissions[':id'].approvals.$post({
      param: { id },
      json: {
        decision: f.decision,
        hash: f.hash ?? '',
        ...(f.reason?.trim() ? { reason: f.reason.trim() } : {}),
      },
    }),
  );
  if (res.status === 200) return c.redirect('/console/approvals', 303);
  if (res.status >= 400 && res.status < 500 && res.status !== 404)
    return approvalsPage(c, deps, { id, error: apiMessage(res) });
  must(res, 'submission');
  return c.redirect('/console/approvals', 303);
}
