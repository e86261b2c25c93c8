// A submission's lifecycle on its page (issue 30 item 6): why it failed or waits, in plain words with the next step
// (GET …/timeline, where each code is explained once), the inputs a refusal named and what spent them, the steps
// from accepted to how it ended, and the admin's two actions on a record waiting on the ledger: "Search the ledger
// now" and, once it can no longer commit, "Mark expired" (a reason required, audited).
import type { InferResponseType } from 'hono/client';
import { allows } from '../auth/index.ts';
import type { Rec } from './approval.tsx';
import type { Api } from './client.ts';
import { answer } from './client.ts';
import { PageError } from './errors.ts';
import { apiMessage, type Ctx, formFields, must } from './http.tsx';
import { Csrf, FormError, Id, Time, type Viewer } from './ui.tsx';

export type TimelineView = InferResponseType<
  Api['wallet']['v1']['submissions'][':id']['timeline']['$get'],
  200
>;

const updateHref = (party: string, updateId: string) =>
  `/console/ledger/update?party=${encodeURIComponent(party)}&updateId=${encodeURIComponent(updateId)}`;

/** Why it failed (or what it waits for), what to do next, and for a spent input which update spent it. */
export function Explained(p: { t: TimelineView; rec: Rec; now: number }) {
  const x = p.t.explanation;
  if (!x) return null;
  const unknown =
    x.code === 'OUTCOME_UNKNOWN' && !['committed', 'rejected', 'expired'].includes(p.rec.status);
  return (
    <section
      class={`explained ${unknown ? 'waiting' : 'failed'}`}
      aria-labelledby="h-why"
      data-testid="explanation"
    >
      <h2 id="h-why">
        {x.title} <span class="code">({x.code})</span>
      </h2>
      <p>{x.text}</p>
      {unknown && (
        <p data-testid="unknown-facts">
          It can commit until <Time at={p.rec.canCommitUntil} now={p.now} />
          {p.rec.searchedAt ? (
            <>
              ; last searched <Time at={p.rec.searchedAt} now={p.now} />
              {p.rec.reconciledThroughOffset !== null && <> through offset {p.rec.reconciledThroughOffset}</>}
            </>
          ) : (
            '; not searched yet'
          )}
          .
        </p>
      )}
      {p.t.spentInputs.length > 0 && (
        <ul data-testid="spent-inputs">
          {p.t.spentInputs.map((s) => (
            <li>
              Input <Id value={s.contractId} />
              {s.templateId && <> ({s.templateId.split(':').slice(-2).join(':')})</>}
              {s.spentBy ? (
                <>
                  {' '}
                  was spent at offset {s.spentBy.offset}
                  {s.spentBy.updateId && (
                    <>
                      {' '}
                      by update{' '}
                      <Id value={s.spentBy.updateId} href={updateHref(p.rec.party, s.spentBy.updateId)} />
                    </>
                  )}
                  {s.spentBy.submission && (
                    <>
                      {' '}
                      (submission{' '}
                      <Id
                        value={s.spentBy.submission}
                        href={`/console/submissions/${s.spentBy.submission}`}
                      />
                      )
                    </>
                  )}
                </>
              ) : s.lookup === 'failed' ? (
                ': the ledger did not answer when asked what spent it'
              ) : (
                ': the ledger shows this party no archive of it'
              )}
            </li>
          ))}
        </ul>
      )}
      <p class="next">
        <strong>Next:</strong> {x.next}
      </p>
    </section>
  );
}

/** Accepted → approvals → signed → attempts → searches → how it ended (or what it waits for). */
export function Lifecycle(p: { t: TimelineView; rec: Rec; now: number }) {
  return (
    <section aria-labelledby="h-lifecycle">
      <h2 id="h-lifecycle">Lifecycle</h2>
      <ol class="timeline" data-testid="timeline">
        {p.t.steps.map((s) => (
          <li class={`step step-${s.kind}`} data-step={s.kind}>
            <span class="when">{s.at ? <Time at={s.at} now={p.now} /> : 'now'}</span>{' '}
            {s.kind === 'committed' && p.rec.updateId ? (
              <a href={updateHref(p.rec.party, p.rec.updateId)}>{s.text}</a>
            ) : (
              s.text
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The admin's actions on a record waiting on the ledger; nothing for other roles or for a final record. */
export function LedgerActions(p: {
  t: TimelineView;
  viewer: Viewer;
  now: number;
  error?: string | undefined;
}) {
  const { search, expireFrom } = p.t.actions;
  if (!allows(p.viewer.principal.role, 'admin') || (!search && !expireFrom)) return null;
  const base = `/console/submissions/${p.t.id}`;
  const expireOpen = expireFrom !== null && Date.parse(expireFrom) <= p.now;
  return (
    <section aria-labelledby="h-ledger-actions">
      <h2 id="h-ledger-actions">Ledger actions</h2>
      <FormError message={p.error} />
      {search && (
        <form method="post" action={`${base}/search`} class="inline">
          <Csrf viewer={p.viewer} />
          <button type="submit">Search the ledger now</button>{' '}
          <span class="hint">Looks for the transaction on the ledger; sends nothing.</span>
        </form>
      )}
      {expireFrom !== null &&
        (expireOpen ? (
          <form method="post" action={`${base}/expire`} class="expire">
            <Csrf viewer={p.viewer} />
            <label for="expire-reason">Why mark it expired (required, in the audit chain)</label>
            <input
              id="expire-reason"
              name="reason"
              required
              minlength={3}
              maxlength={500}
              autocomplete="off"
            />
            <button type="submit" class="danger">
              Mark expired
            </button>
            <span class="hint">
              The ledger is searched once more first: if it is there, the record is committed.
            </span>
          </form>
        ) : (
          <p class="hint" data-testid="expire-later">
            "Mark expired" opens <Time at={expireFrom} now={p.now} />, when the ledger can no longer commit
            it.
          </p>
        ))}
    </section>
  );
}

/** The record's timeline as the API answers it. */
export async function timelineOf(c: Ctx, id: string): Promise<TimelineView> {
  return must(
    await answer(c.get('api').wallet.v1.submissions[':id'].timeline.$get({ param: { id } })),
    'submission',
  );
}

type Rerender = (c: Ctx, id: string, form: { ledgerError: string }) => Promise<Response>;

/** POST /console/submissions/:id/search: the API's search, then the page with what it found. */
export async function searchLedgerNow(c: Ctx, id: string, page: Rerender) {
  const res = await answer(c.get('api').wallet.v1.submissions[':id'].search.$post({ param: { id } }));
  return afterAction(c, id, res, page, (found) => (found ? 'found' : 'searched'));
}

/** POST /console/submissions/:id/expire: the reason is checked here first (kept in the form when refused). */
export async function markExpired(c: Ctx, id: string, page: Rerender) {
  const f = await formFields(c);
  const reason = (f.reason ?? '').trim();
  if (reason.length < 3 || reason.length > 500)
    return page(c, id, {
      ledgerError: 'Say why it is marked expired (3 to 500 characters): nothing was changed.',
    });
  const res = await answer(
    c.get('api').wallet.v1.submissions[':id'].expire.$post({ param: { id }, json: { reason } }),
  );
  return afterAction(c, id, res, page, (found) => (found ? 'found' : 'expired'));
}

async function afterAction(
  c: Ctx,
  id: string,
  res: { status: number; body: unknown },
  page: Rerender,
  done: (found: boolean) => string,
) {
  if (res.status === 404)
    throw new PageError(404, 'No submission: it does not exist or is not visible to you.');
  if (res.status >= 400) return page(c, id, { ledgerError: apiMessage(res) });
  const found = (res.body as { found?: boolean }).found === true;
  return c.redirect(`/console/submissions/${id}?ledger=${done(found)}`, 303);
}

/** The line after an action, from `?ledger=`. */
export function LedgerFlash(p: { outcome: string | undefined; rec: Rec }) {
  const text: Record<string, string> = {
    found: `The ledger holds it: the submission is ${p.rec.status}.`,
    searched: 'Searched the ledger: not there yet. The worker keeps looking until it can no longer commit.',
    expired: `Marked ${p.rec.status}.`,
  };
  const line = p.outcome ? text[p.outcome] : undefined;
  return line ? (
    <p class="flash" role="status" data-testid="ledger-flash">
      {line}
    </p>
  ) : null;
}
