// Submissions: filtered by party, status and time, updating in place (console.js polls the rows fragment); a
// submission's page shows what was signed as a readable preview, its attempts and the committed transaction.

import type { InferResponseType } from 'hono/client';
import { SUBMISSION_STATUSES, type SubmissionStatus } from '../../submissions/index.ts';
import { Decide, DecisionFlash, HashToSign, Sentence } from '../approval.tsx';
import { type Api, answer } from '../client.ts';
import { PageError } from '../errors.ts';
import { apiMessage, type Ctx, must } from '../http.tsx';
import { Empty, Facts, Id, Json, Page, Status, Template, Time } from '../ui.tsx';

interface Filters {
  party?: string;
  status?: SubmissionStatus;
  since?: string;
  until?: string;
  cursor?: string;
}

/** A `datetime-local` value (read as UTC) or an ISO time; undefined when empty; an error message when neither. */
function time(v: string | undefined, name: string): string | undefined {
  if (!v?.trim()) return undefined;
  const t = v.trim();
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(t)
    ? `${t.length === 16 ? `${t}:00` : t}Z`
    : t;
  if (Number.isNaN(Date.parse(iso)) || !/^\d{4}-\d{2}-\d{2}T/.test(iso))
    throw new PageError(400, `${name}: not a date and time (use YYYY-MM-DDTHH:MM, UTC)`);
  return new Date(iso).toISOString();
}

/** `olderThan=10m` (or `2h`, `1d`): created before that long ago, as the `to` time (the overview's links). */
function olderThan(v: string | undefined): string | undefined {
  if (!v) return undefined;
  const m = /^(\d{1,5})([mhd])$/.exec(v.trim());
  if (!m) throw new PageError(400, 'olderThan: a number of minutes, hours or days, such as 10m, 2h or 1d');
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd'];
  return new Date(Date.now() - Number(m[1]) * unit).toISOString();
}

function readFilters(c: Ctx): Filters {
  const q = c.req.query();
  const status = SUBMISSION_STATUSES.find((s) => s === q.status);
  if (q.status && !status) throw new PageError(400, `status: one of ${SUBMISSION_STATUSES.join(', ')}`);
  const f: Filters = {};
  if (q.party?.trim()) f.party = q.party.trim();
  if (status) f.status = status;
  const since = time(q.since, 'from');
  const until = time(q.until, 'to') ?? olderThan(q.olderThan);
  if (since) f.since = since;
  if (until) f.until = until;
  if (q.cursor) f.cursor = q.cursor;
  return f;
}

function query(f: Filters, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...f, ...extra })) if (v) p.set(k, v);
  return p.toString();
}

async function load(c: Ctx, f: Filters) {
  const res = await answer(c.get('api').wallet.v1.submissions.$get({ query: { ...f, limit: '50' } }));
  if (res.status === 400) throw new PageError(400, apiMessage(res));
  return must(res, 'submissions');
}

/** A submission record as the API answers it. */
export type Submission = InferResponseType<Api['wallet']['v1']['submissions']['$get'], 200>['items'][number];

const Rows = (p: { items: Submission[] }) => (
  <tbody data-testid="submission-rows">
    {p.items.map((r) => (
      <tr data-id={r.id}>
        <td>
          <Id value={r.id} href={`/console/submissions/${r.id}`} />
        </td>
        <td>
          <Status status={r.status} />
        </td>
        <td>
          <Id value={r.party} />
        </td>
        <td class="mono">{r.error?.code ?? ''}</td>
        <td>
          <Time at={r.createdAt} />
        </td>
        <td>
          <Time at={r.updatedAt} />
        </td>
      </tr>
    ))}
  </tbody>
);

/** Submissions with status, party, error and times; `live`: the rows fragment console.js polls to update them. */
export const SubmissionTable = (p: { items: Submission[]; live?: string }) => (
  <table data-live={p.live} aria-live={p.live ? 'polite' : undefined}>
    <thead>
      <tr>
        <th scope="col">Submission</th>
        <th scope="col">Status</th>
        <th scope="col">Party</th>
        <th scope="col">Error</th>
        <th scope="col">Created</th>
        <th scope="col">Updated</th>
      </tr>
    </thead>
    <Rows items={p.items} />
  </table>
);

export async function submissionsPage(c: Ctx) {
  const viewer = c.get('viewer');
  const f = readFilters(c);
  const page = await load(c, f);
  const local = (iso?: string) => (iso ? iso.slice(0, 16) : '');
  return c.html(
    <Page title="Submissions" viewer={viewer} active="/console/submissions">
      <form method="get" action="/console/submissions" class="inline" data-testid="submission-filters">
        <label>
          Party
          <input name="party" value={f.party ?? viewer.principal.party ?? ''} maxlength={512} />
        </label>
        <label>
          Status
          <select name="status">
            <option value="">any</option>
            {SUBMISSION_STATUSES.map((s) => (
              <option value={s} selected={f.status === s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          From (UTC)
          <input type="datetime-local" name="since" value={local(f.since)} />
        </label>
        <label>
          To (UTC)
          <input type="datetime-local" name="until" value={local(f.until)} />
        </label>
        <button type="submit">Filter</button>
      </form>
      {page.items.length === 0 && !f.cursor ? <Empty>No submissions match.</Empty> : null}
      <SubmissionTable items={page.items} live={`/console/submissions/rows?${query(f)}`} />
      {page.nextCursor && (
        <p>
          <a href={`/console/submissions?${query({ ...f, cursor: page.nextCursor })}`}>Older submissions</a>
        </p>
      )}
    </Page>,
  );
}

/** The rows alone, for console.js to swap in place (statuses change without a reload). */
export async function submissionRows(c: Ctx) {
  const page = await load(c, readFilters(c));
  return c.html(<Rows items={page.items} />);
}

/** A submission id as the console accepts it in a path. */
export const ID = /^[\w-]{1,100}$/;

/** The record's hash was signed: not while awaiting approval, nor when the approval ended it unsigned. */
const UNSIGNED_ENDS = new Set(['APPROVAL_REJECTED', 'APPROVAL_EXPIRED', 'POLICY_CHANGED']);

/** A submission's page; `form`: a decision made here was refused (approvals.tsx `decide`). */
export async function submissionPage(c: Ctx, id: string, form?: { error: string }) {
  if (!ID.test(id)) throw new PageError(404, 'No submission: it does not exist or is not visible to you.');
  const api = c.get('api');
  const one = api.wallet.v1.submissions[':id'];
  const rec = must(await answer(one.$get({ param: { id }, query: {} })), 'submission');
  const pv = must(await answer(one.preview.$get({ param: { id } })), 'submission');
  const tx = pv.preview;
  const viewer = c.get('viewer');
  const awaiting = rec.status === 'awaiting_approval';
  const signed = !awaiting && !(rec.error && UNSIGNED_ENDS.has(rec.error.code));
  // Whether an approval could sign it: the approvals list says, for the key of each submission awaiting.
  const held = awaiting
    ? await answer(api.wallet.v1.approvals.$get({ query: { party: rec.party } }))
    : undefined;
  const keyStatus =
    held?.status === 200 ? (held.body.items.find((r) => r.id === rec.id)?.keyStatus ?? null) : null;
  return c.html(
    <Page title="Submission" viewer={viewer} active="/console/submissions">
      {c.req.query('decided') === rec.id && <DecisionFlash viewer={viewer} rec={rec} />}
      <Sentence pv={pv} rec={rec} />
      <div data-live-status={`/console/submissions/${id}/status`}>
        <Facts
          rows={[
            ['Id', <span class="mono">{rec.id}</span>],
            ['Status', <Status status={rec.status} />],
            ['Party', <span class="mono wrap">{rec.party}</span>],
            ['Command id', <span class="mono">{rec.commandId}</span>],
            ['Key', <Id value={rec.keyFingerprint} href={`/console/keys/${rec.keyFingerprint}`} />],
            ['Requested by', rec.requestedBy],
            ['Created', <Time at={rec.createdAt} />],
            ['Can commit until', <Time at={rec.canCommitUntil} />],
            [
              'Update id',
              rec.updateId ? (
                <a
                  data-testid="update-id"
                  class="mono"
                  href={`/console/ledger/update?party=${encodeURIComponent(rec.party)}&updateId=${encodeURIComponent(rec.updateId)}`}
                >
                  {rec.updateId}
                </a>
              ) : (
                '—'
              ),
            ],
            ['Error', rec.error ? `${rec.error.code}: ${rec.error.message}` : '—'],
            ['Traffic paid', <span data-testid="traffic-paid">{rec.paidTrafficCost ?? '—'}</span>],
            [
              'Traffic estimated',
              rec.costEstimation ? (
                <span data-testid="traffic-estimated">
                  {rec.costEstimation.totalTrafficCostEstimation} (request{' '}
                  {rec.costEstimation.confirmationRequestTrafficCostEstimation}, response{' '}
                  {rec.costEstimation.confirmationResponseTrafficCostEstimation}) at{' '}
                  <Time at={rec.costEstimation.estimationTimestamp} />
                </span>
              ) : (
                '—'
              ),
            ],
          ]}
        />
      </div>
      {awaiting && (
        <section aria-labelledby="h-approval">
          <h2 id="h-approval">Approval</h2>
          <HashToSign pv={pv} rec={rec} />
          <Decide
            viewer={viewer}
            rec={rec}
            keyStatus={keyStatus}
            pv={pv}
            from="submission"
            error={form?.error}
            now={Date.now()}
          />
        </section>
      )}
      <section aria-labelledby="h-signed">
        <h2 id="h-signed">
          {signed
            ? 'What was signed'
            : awaiting
              ? 'What will be signed'
              : 'What was to be signed (never signed)'}
        </h2>
        <Facts
          rows={[
            ['Hashing scheme', rec.hashingSchemeVersion],
            [
              signed ? 'Signed hash' : 'Hash on record',
              <span class="mono wrap">{rec.preparedTransactionHash}</span>,
            ],
            [
              signed ? 'Recomputed hash' : 'Hash to sign (recomputed)',
              pv.recomputedHash ? (
                <span class={`mono wrap ${pv.hashMatches ? 'ok' : 'bad'}`} data-testid="recomputed-hash">
                  {pv.recomputedHash} {pv.hashMatches ? '(matches)' : '(DOES NOT MATCH)'}
                </span>
              ) : (
                `the transaction was dropped at ${pv.payloadDroppedAt ?? '?'} (PAYLOAD_RETENTION_HOURS)`
              ),
            ],
          ]}
        />
        {tx && (
          <div data-testid="preview">
            {pv.summary && (
              <>
                <h3>What it does</h3>
                <ul class="summary" data-testid="summary">
                  {pv.summary.map((line) => (
                    <li>{line}</li>
                  ))}
                </ul>
              </>
            )}
            <Facts
              rows={[
                ['Act as', tx.actAs.join(', ')],
                [
                  'Synchronizer',
                  <span class="mono wrap">
                    {tx.logicalSynchronizerId}
                    {tx.synchronizerId !== tx.logicalSynchronizerId && ` (physical: ${tx.synchronizerId})`}
                  </span>,
                ],
                ['Preparation time', <Time at={tx.preparationTime} />],
                ['Ledger time from', <Time at={tx.minLedgerEffectiveTime} />],
                ['Ledger time until', <Time at={tx.maxLedgerEffectiveTime} />],
                ['Max record time', <Time at={tx.maxRecordTime} />],
              ]}
            />
            <h3>Actions</h3>
            <ol class="nodes">
              {tx.nodes.map((n) => (
                <li class={`depth-${Math.min(n.depth, 6)}`}>
                  <strong>{n.kind}</strong> <Template templateId={n.templateId} packageName={n.packageName} />
                  {n.choice ? (
                    <>
                      {' '}
                      choice <strong>{n.choice}</strong>
                      {n.consuming ? ' (consuming)' : ''}
                    </>
                  ) : null}
                  {n.contractId ? (
                    <>
                      {' '}
                      on <Id value={n.contractId} />
                    </>
                  ) : null}
                  {n.actingParties?.length ? <> by {n.actingParties.join(', ')}</> : null}
                  {(n.choiceArgument ?? n.argument) !== undefined && (
                    <Json value={n.choiceArgument ?? n.argument} label={`arguments of node ${n.nodeId}`} />
                  )}
                </li>
              ))}
            </ol>
            <h3>Input contracts</h3>
            {tx.inputContracts.length === 0 ? (
              <Empty>None.</Empty>
            ) : (
              <ul>
                {tx.inputContracts.map((ic) => (
                  <li>
                    <Template templateId={ic.templateId} packageName={ic.packageName} />{' '}
                    <Id value={ic.contractId} />
                    <Json value={ic.argument} label={`contract ${ic.contractId}`} />
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
      </section>
      <section aria-labelledby="h-attempts">
        <h2 id="h-attempts">Attempts</h2>
        {rec.attempts.length === 0 ? (
          <Empty>Not sent yet.</Empty>
        ) : (
          <table data-testid="attempts">
            <thead>
              <tr>
                <th scope="col">Submission id</th>
                <th scope="col">Started</th>
                <th scope="col">Finished</th>
                <th scope="col">Dedup period (s)</th>
                <th scope="col">Outcome</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {rec.attempts.map((a) => (
                <tr>
                  <td class="mono">{a.submissionId}</td>
                  <td>
                    <Time at={a.startedAt} />
                  </td>
                  <td>
                    <Time at={a.finishedAt} />
                  </td>
                  <td class="num">{a.deduplicationSeconds}</td>
                  <td>{a.outcome}</td>
                  <td>{a.error ? `${a.error.code}: ${a.error.message}` : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {!awaiting && rec.approvals && rec.approvals.length > 0 && (
        <section aria-labelledby="h-decisions">
          <h2 id="h-decisions">Approval decisions</h2>
          <ul>
            {rec.approvals.map((a) => (
              <li>
                {a.subject} {a.decision === 'approve' ? 'approved' : 'rejected'} at <Time at={a.at} />
                {a.reason ? `: ${a.reason}` : ''}
              </li>
            ))}
          </ul>
        </section>
      )}
      {rec.transaction ? (
        <section aria-labelledby="h-tx">
          <h2 id="h-tx">Committed transaction</h2>
          <Json value={rec.transaction} label="committed transaction" />
        </section>
      ) : null}
    </Page>,
  );
}

/** The status alone (console.js reloads the page when it changed). */
export async function submissionStatus(c: Ctx, id: string) {
  if (!ID.test(id)) return c.json({ error: { code: 'NOT_FOUND', message: 'no such submission' } }, 404);
  const res = await answer(c.get('api').wallet.v1.submissions[':id'].$get({ param: { id }, query: {} }));
  if (res.status !== 200) return c.json(res.body, res.status);
  return c.json({ status: res.body.status, updatedAt: res.body.updatedAt });
}
