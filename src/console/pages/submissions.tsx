// A submission's page: what was signed as a readable preview, its attempts and the committed transaction (the list
// is submission-list.tsx).

import { Decide, DecisionFlash, HashToSign, Sentence } from '../approval.tsx';
import { answer } from '../client.ts';
import { PageError } from '../errors.ts';
import { type Ctx, must } from '../http.tsx';
import {
  Explained,
  LedgerActions,
  LedgerFlash,
  Lifecycle,
  markExpired,
  searchLedgerNow,
  timelineOf,
} from '../lifecycle.tsx';
import { Empty, Facts, Id, Json, Page, Party, Status, Template, Time } from '../ui.tsx';

/** A submission id as the console accepts it in a path. */
export const ID = /^[\w-]{1,100}$/;

type RoundView = {
  threshold: number;
  deadline: string | null;
  keys: { fingerprint: string; holder: string; label: string | null; signedAt: string | null }[];
};

/** A signature round: who signed when, who is awaited, until when, and where an external holder signs. */
function Round(p: { rec: { id: string; status: string }; round: RoundView }) {
  const signed = p.round.keys.filter((k) => k.signedAt !== null).length;
  return (
    <section aria-labelledby="h-round">
      <h2 id="h-round">Signatures</h2>
      <p data-testid="round-progress">
        {signed} of {p.round.threshold} signatures
        {p.round.deadline ? (
          <>
            {' '}
            (deadline <Time at={p.round.deadline} />)
          </>
        ) : null}
        {p.rec.status === 'awaiting_signatures' && (
          <>
            {' '}
            — <a href={`/console/submissions/${p.rec.id}/sign`}>Sign it</a>
          </>
        )}
      </p>
      <ul data-testid="round-keys">
        {p.round.keys.map((k) => (
          <li>
            <Id value={k.fingerprint} /> {k.label ?? ''} ({k.holder === 'quill' ? 'Quill' : 'external holder'}
            ):{' '}
            {k.signedAt ? (
              <>
                signed <Time at={k.signedAt} />
              </>
            ) : (
              'awaited'
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The record's hash was signed: not while awaiting approval, nor when the approval ended it unsigned. */
const UNSIGNED_ENDS = new Set(['APPROVAL_REJECTED', 'APPROVAL_EXPIRED', 'POLICY_CHANGED']);

/**
 * A submission's page; `form`: a decision made here was refused (approvals.tsx `decide`), or a ledger action
 * (`ledgerError`).
 */
export async function submissionPage(c: Ctx, id: string, form?: { error?: string; ledgerError?: string }) {
  if (!ID.test(id)) notFound();
  const api = c.get('api');
  const one = api.wallet.v1.submissions[':id'];
  // The timeline may wait on the ledger (what spent an input): read beside the record and its preview.
  const [recRes, pvRes, t] = await Promise.all([
    answer(one.$get({ param: { id }, query: {} })),
    answer(one.preview.$get({ param: { id } })),
    timelineOf(c, id),
  ]);
  const rec = must(recRes, 'submission');
  const pv = must(pvRes, 'submission');
  const tx = pv.preview;
  const now = Date.now();
  const viewer = c.get('viewer');
  const awaiting = rec.status === 'awaiting_approval';
  const signed =
    !awaiting && rec.status !== 'awaiting_signatures' && !(rec.error && UNSIGNED_ENDS.has(rec.error.code));
  // Whether an approval could sign it: the approvals list says, for the key of each submission awaiting.
  const held = awaiting
    ? await answer(api.wallet.v1.approvals.$get({ query: { party: rec.party } }))
    : undefined;
  const keyStatus =
    held?.status === 200 ? (held.body.items.find((r) => r.id === rec.id)?.keyStatus ?? null) : null;
  return c.html(
    <Page title="Submission" viewer={viewer} active="/console/submissions">
      {c.req.query('decided') === rec.id && <DecisionFlash viewer={viewer} rec={rec} />}
      <LedgerFlash outcome={c.req.query('ledger')} rec={rec} />
      <Sentence pv={pv} rec={rec} />
      <Explained t={t} rec={rec} now={now} />
      <div data-live-record={rec.id}>
        <Facts
          rows={[
            ['Id', <Id value={rec.id} full />],
            ['Status', <Status status={rec.status} />],
            ['Party', <Party value={rec.party} full />],
            ['Command id', <Id value={rec.commandId} full />],
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
            now={now}
          />
        </section>
      )}
      {rec.signatureRound && <Round rec={rec} round={rec.signatureRound} />}
      <Lifecycle t={t} rec={rec} now={now} />
      <LedgerActions t={t} viewer={viewer} now={now} error={form?.ledgerError} />
      <section aria-labelledby="h-signed">
        <h2 id="h-signed">
          {signed
            ? 'What was signed'
            : awaiting || rec.status === 'awaiting_signatures'
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
                  <td>
                    <Id value={a.submissionId} />
                  </td>
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
      {rec.transaction ? (
        <section aria-labelledby="h-tx">
          <h2 id="h-tx">Committed transaction</h2>
          <Json value={rec.transaction} label="committed transaction" />
        </section>
      ) : null}
    </Page>,
    form ? 400 : 200,
  );
}

/** The admin's "Search the ledger now" and "Mark expired" (lifecycle.tsx), answered on this page. */
export const searchSubmission = (c: Ctx, id: string) =>
  ID.test(id) ? searchLedgerNow(c, id, submissionPage) : notFound();
export const expireSubmission = (c: Ctx, id: string) =>
  ID.test(id) ? markExpired(c, id, submissionPage) : notFound();

function notFound(): never {
  throw new PageError(404, 'No submission: it does not exist or is not visible to you.');
}
