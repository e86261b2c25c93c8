// Policy: the version in force, a change to it (in force at once, or a proposal while the policy is governed),
// the proposals with what each changes and the quorum's progress, approve (bound to the document hash) or reject
// with a reason, and the versions before. Every action goes through the wallet API as the operator.

import { parse as parseYaml } from 'yaml';
import { samePerson } from '../../auth/index.ts';
import { answer } from '../client.ts';
import type { ConsoleDeps } from '../deps.ts';
import { PageError } from '../errors.ts';
import { apiMessage, type Ctx, formFields, must } from '../http.tsx';
import { Csrf, Empty, Facts, FormError, Json, Notice, Page, Time } from '../ui.tsx';

type Form = { error: string; at: 'propose' | string; text?: string };

interface Change {
  path: string;
  change: string;
  before?: unknown;
  after?: unknown;
}

/** What the page says after an action (POST, redirect, GET). */
const DONE: Record<string, string> = {
  version: 'The new version is in force.',
  proposal: 'Your proposal is filed: it takes effect when the governance quorum approves it.',
  decision: 'Your decision is recorded.',
};

const shown = (v: unknown) => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

const Diff = (p: { changes: readonly Change[] }) =>
  p.changes.length === 0 ? (
    <Empty>No change.</Empty>
  ) : (
    <div class="scroll">
      <table data-testid="diff">
        <thead>
          <tr>
            <th scope="col">What</th>
            <th scope="col">Change</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {p.changes.map((c) => (
            <tr>
              <td class="mono">{c.path}</td>
              <td>
                {c.path.startsWith('groups.') && c.change === 'changed' ? 'people removed / added' : c.change}
              </td>
              <td class="mono wrap">{shown(c.before)}</td>
              <td class="mono wrap">{shown(c.after)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );

export async function policyPage(c: Ctx, _deps: ConsoleDeps, form?: Form) {
  const api = c.get('api');
  const viewer = c.get('viewer');
  const current = must(await answer(api.wallet.v1.policy.$get()), 'policy');
  const proposals = must(await answer(api.wallet.v1.policy.proposals.$get({ query: {} })), 'proposals');
  const versions = must(await answer(api.wallet.v1.policy.versions.$get()), 'policy versions');
  const doc = current.document as { policyGovernance?: { quorum: number; group: string } } | null;
  const gov = doc?.policyGovernance;
  const unscoped = viewer.principal.party === undefined;
  const me = viewer.principal.subject;
  const pending = proposals.items.filter((p) => p.status === 'pending');
  const closed = proposals.items.filter((p) => p.status !== 'pending').slice(0, 20);
  const done = c.req.query('done');
  return c.html(
    <Page title="Policy" viewer={viewer} active="/console/policy">
      {done && DONE[done] && <Notice>{DONE[done]}</Notice>}
      <section aria-labelledby="h-current">
        <h2 id="h-current">In force</h2>
        {current.version === null ? (
          <Empty>No policy: every checked transaction is signed.</Empty>
        ) : (
          <>
            <Facts
              rows={[
                ['Version', String(current.version)],
                ['Document hash', <span class="mono wrap">{current.documentHash}</span>],
                [
                  'Changes',
                  gov
                    ? `need ${gov.quorum} approval${gov.quorum === 1 ? '' : 's'} from group ${gov.group} (the proposer's own does not count)`
                    : 'take effect at once (no policyGovernance)',
                ],
              ]}
            />
            <details>
              <summary>The document</summary>
              <Json value={current.document} label="Policy document" />
            </details>
          </>
        )}
      </section>
      <section aria-labelledby="h-pending">
        <h2 id="h-pending">Proposed changes</h2>
        {pending.length === 0 ? (
          <Empty>No change awaits approval.</Empty>
        ) : (
          pending.map((p) => {
            const approvals = p.decisions.filter((d) => d.decision === 'approve');
            const mine = samePerson(p.proposedBy, me);
            const decided = p.decisions.some((d) => samePerson(d.subject, me));
            return (
              <article class="approval" data-id={p.id} aria-label={`Proposal ${p.id}`}>
                <h3 class="mono">{p.id}</h3>
                <p>
                  Proposed by {p.proposedBy} <Time at={p.proposedAt} /> against version {p.baseVersion}.
                  Decide before <Time at={p.expiresAt} />.
                </p>
                <p data-testid="progress">
                  {approvals.length} of {p.quorum} approvals from {p.group}
                  {approvals.map((d) => ` · ${d.subject} ✓`).join('')}
                  {` · needs ${p.quorum - approvals.length} more`}
                </p>
                <Diff changes={p.diff} />
                <p class="mono wrap">document hash {p.documentHash}</p>
                {!unscoped ? null : decided ? (
                  <p>You decided on this proposal.</p>
                ) : (
                  <div class="decide">
                    {mine ? (
                      <p>You proposed it: others approve it. You may withdraw it.</p>
                    ) : (
                      <form method="post" action={`/console/policy/proposals/${p.id}`} class="inline">
                        <Csrf viewer={viewer} />
                        <input type="hidden" name="hash" value={p.documentHash} />
                        <input type="hidden" name="decision" value="approve" />
                        <button type="submit">Approve this change</button>
                      </form>
                    )}
                    <form method="post" action={`/console/policy/proposals/${p.id}`} class="inline">
                      <Csrf viewer={viewer} />
                      <input type="hidden" name="hash" value={p.documentHash} />
                      <input type="hidden" name="decision" value="reject" />
                      <label>
                        Reason
                        <input name="reason" maxlength={500} required />
                      </label>
                      <button type="submit" class="danger">
                        {mine ? 'Withdraw' : 'Reject'}
                      </button>
                    </form>
                    {form?.at === p.id && <FormError message={form.error} />}
                  </div>
                )}
              </article>
            );
          })
        )}
      </section>
      {unscoped && (
        <section aria-labelledby="h-propose">
          <h2 id="h-propose">{gov ? 'Propose a change' : 'Change the policy'}</h2>
          <form method="post" action="/console/policy" data-testid="propose">
            <Csrf viewer={viewer} />
            <label>
              The whole new document (YAML or JSON; see docs/policies.md)
              <textarea name="document" rows={14} maxlength={200_000} required>
                {form?.at === 'propose' ? (form.text ?? '') : JSON.stringify(current.document ?? {}, null, 2)}
              </textarea>
            </label>
            <button type="submit">{gov ? 'Propose' : 'Put in force'}</button>
            <FormError message={form?.at === 'propose' ? form.error : undefined} />
          </form>
        </section>
      )}
      {closed.length > 0 && (
        <section aria-labelledby="h-closed">
          <h2 id="h-closed">Decided proposals</h2>
          <ul>
            {closed.map((p) => (
              <li>
                <span class="mono">{p.id}</span> {p.status}
                {p.appliedVersion !== undefined ? ` as version ${p.appliedVersion}` : ''}
                {p.closedReason ? ` (${p.closedReason})` : ''} · <Time at={p.closedAt} />
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="h-versions">
        <h2 id="h-versions">Versions</h2>
        {versions.items.length === 0 ? (
          <Empty>None yet.</Empty>
        ) : (
          versions.items.slice(0, 20).map((v) => (
            <details>
              <summary>
                Version {v.version} by {v.by} · <Time at={v.at} /> · {v.diff.length} change
                {v.diff.length === 1 ? '' : 's'}
              </summary>
              <Diff changes={v.diff} />
            </details>
          ))
        )}
      </section>
    </Page>,
    form ? 400 : 200,
  );
}

/** A new document: in force at once, or filed as a proposal (the API decides which). */
export async function proposePolicy(c: Ctx, deps: ConsoleDeps) {
  const f = await formFields(c);
  const text = f.document ?? '';
  // YAML (a superset of JSON) to the JSON the API takes; the API validates the document.
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 100, uniqueKeys: true, logLevel: 'error' });
  } catch (err) {
    const line = (err as Error).message.split('\n')[0] ?? '';
    return policyPage(c, deps, { at: 'propose', error: `Not YAML or JSON: ${line.slice(0, 200)}`, text });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return policyPage(c, deps, {
      at: 'propose',
      error: 'The document must be a mapping (keys and values).',
      text,
    });
  const res = await answer(c.get('api').wallet.v1.policy.$put({ json: doc as Record<string, unknown> }));
  if (res.status === 200) return c.redirect('/console/policy?done=version', 303);
  if (res.status === 202) return c.redirect('/console/policy?done=proposal', 303);
  if (res.status === 400 || res.status === 409)
    return policyPage(c, deps, { at: 'propose', error: apiMessage(res), text });
  must(res, 'policy');
  return c.redirect('/console/policy', 303);
}

export async function decideProposal(c: Ctx, deps: ConsoleDeps, id: string) {
  if (!/^[\w-]{1,100}$/.test(id)) throw new PageError(404, 'No such proposal.');
  const f = await formFields(c);
  if (f.decision !== 'approve' && f.decision !== 'reject')
    return policyPage(c, deps, { at: id, error: 'Choose approve or reject.' });
  if (f.decision === 'reject' && !f.reason?.trim())
    return policyPage(c, deps, { at: id, error: 'Reason: say why you reject it.' });
  const res = await answer(
    c.get('api').wallet.v1.policy.proposals[':id'].approvals.$post({
      param: { id },
      json: {
        decision: f.decision,
        hash: f.hash ?? '',
        ...(f.reason?.trim() ? { reason: f.reason.trim().slice(0, 500) } : {}),
      },
    }),
  );
  if (res.status === 200)
    return c.redirect(`/console/policy?done=${res.body.status === 'applied' ? 'version' : 'decision'}`, 303);
  if (res.status >= 400 && res.status < 500 && res.status !== 404)
    return policyPage(c, deps, { at: id, error: apiMessage(res) });
  must(res, 'proposal');
  return c.redirect('/console/policy', 303);
}
