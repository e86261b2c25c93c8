// Parties: the list, onboarding from a key, and a party's page (its submissions, ledger transactions, activity
// feed entries, holdings per instrument and pending transfer instructions).
import { allows } from '../../auth/index.ts';
import { answer } from '../client.ts';
import { PageError } from '../errors.ts';
import { apiMessage, type Ctx, formFields, must } from '../http.tsx';
import { ActivityTable, Amount, Csrf, Empty, FormError, Id, Page, Party, Time } from '../ui.tsx';
import { SubmissionTable, submissionTableData } from './submission-list.tsx';

/** Rows per list on a party's page. */
const PAGE = 50;

/** A ledger offset in a query (absent: undefined; anything else is a 400 page). */
function offsetParam(v: string | undefined): number | undefined {
  if (v === undefined || v === '') return undefined;
  if (!/^\d{1,15}$/.test(v)) throw new PageError(400, 'That page cursor is not a ledger offset.');
  return Number(v);
}

export async function partiesPage(c: Ctx, form?: { error: string; values: Record<string, string> }) {
  const api = c.get('api');
  const viewer = c.get('viewer');
  const parties = must(await answer(api.wallet.v1.parties.$get()), 'parties');
  const canOnboard = allows(viewer.principal.role, 'admin') && viewer.principal.party === undefined;
  const keys = canOnboard ? await answer(api.wallet.v1.keys.$get()) : undefined;
  const active = keys?.status === 200 ? keys.body.items.filter((k) => k.status === 'active') : [];
  const chosen = form?.values.keyFingerprint ?? c.req.query('key');
  const bound = new Set(parties.items.map((p) => p.keyFingerprint));
  return c.html(
    <Page title="Parties" viewer={viewer} active="/console/parties">
      {canOnboard && <GovernedForm active={active} form={form} viewer={viewer} />}
      {canOnboard && (
        <section aria-labelledby="h-onboard">
          <h2 id="h-onboard">Onboard a single-key party</h2>
          <p class="hint">Its one key is also its namespace: it can never be rotated.</p>
          <form method="post" action="/console/parties" class="inline" data-testid="onboard-party">
            <Csrf viewer={viewer} />
            <label>
              Key
              <select name="keyFingerprint" required>
                {/* No key by default (a forgotten choice must not onboard onto the first key); ?key= preselects. */}
                <option value="">choose a key…</option>
                {active.map((k) => (
                  <option value={k.fingerprint} selected={chosen === k.fingerprint}>
                    {k.label ? `${k.label} · ` : ''}
                    {k.fingerprint.slice(0, 16)}… ({k.algorithm})
                    {bound.has(k.fingerprint) ? ' · has a party' : ''}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Party hint
              <input name="partyHint" required maxlength={185} value={form?.values.partyHint ?? ''} />
            </label>
            <label>
              Synchronizer (optional)
              <input name="synchronizerId" maxlength={512} value={form?.values.synchronizerId ?? ''} />
            </label>
            <button type="submit">Onboard</button>
            <FormError message={form?.values.form === 'governed' ? undefined : form?.error} />
          </form>
        </section>
      )}
      <section aria-labelledby="h-parties">
        <h2 id="h-parties">Parties</h2>
        {parties.items.length === 0 ? (
          <Empty>No parties yet.</Empty>
        ) : (
          <table data-testid="parties">
            <thead>
              <tr>
                <th scope="col">Party</th>
                <th scope="col">Namespace key</th>
                <th scope="col">Signs</th>
                <th scope="col">Synchronizer</th>
              </tr>
            </thead>
            <tbody>
              {parties.items.map((p) => (
                <tr data-party={p.partyId}>
                  <td>
                    <Party value={p.partyId} />
                  </td>
                  <td>
                    <Id value={p.keyFingerprint} href={`/console/keys/${p.keyFingerprint}`} />
                  </td>
                  <td>
                    {p.threshold} of {p.signingKeys.length}
                  </td>
                  <td>
                    <Id value={p.synchronizerId} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </Page>,
    form ? 400 : 200,
  );
}

export async function onboardParty(c: Ctx) {
  const f = await formFields(c);
  if (f.form === 'governed') return onboardGoverned(c, f);
  if (!f.keyFingerprint) return partiesPage(c, { error: 'Choose a key (generate one first).', values: f });
  if (!f.partyHint?.trim()) return partiesPage(c, { error: 'Party hint: required.', values: f });
  const res = await answer(
    c.get('api').wallet.v1.parties.$post({
      json: {
        keyFingerprint: f.keyFingerprint,
        partyHint: f.partyHint.trim(),
        ...(f.synchronizerId?.trim() ? { synchronizerId: f.synchronizerId.trim() } : {}),
      },
    }),
  );
  if (res.status === 201) return c.redirect(`/console/parties/${encodeURIComponent(res.body.partyId)}`, 303);
  if (res.status >= 400 && res.status < 500) return partiesPage(c, { error: apiMessage(res), values: f });
  must(res, 'party');
  throw new PageError(503, 'unexpected answer');
}

export async function partyPage(c: Ctx, party: string) {
  const api = c.get('api');
  const viewer = c.get('viewer');
  const p = encodeURIComponent(party);
  const scope = viewer.principal.party;
  if (scope !== undefined && scope !== party)
    throw new PageError(404, 'No party: it does not exist or is not visible to you.');
  // The party registry is for admins; other roles see the party's records without its key.
  const list = await answer(api.wallet.v1.parties.$get());
  const view = list.status === 200 ? list.body.items.find((x) => x.partyId === party) : undefined;
  if (list.status === 200 && !view)
    throw new PageError(404, 'No party: it does not exist or is not visible to you.');
  const one = api.wallet.v1.parties[':party'];
  // Each list 50 at a time (issue 30 item 10): the transactions page by offset here, the submissions and the feed
  // continue on their own pages.
  const txBefore = offsetParam(c.req.query('txBefore'));
  const txAfter = offsetParam(c.req.query('txAfter'));
  const [subs, rounds, history, holdings, offers, feed] = await Promise.all([
    answer(api.wallet.v1.submissions.$get({ query: { party, limit: String(PAGE) } })),
    answer(
      api.wallet.v1.submissions.$get({
        query: { party, status: 'awaiting_signatures', limit: String(PAGE) },
      }),
    ),
    answer(
      one.transactions.$get({
        param: { party },
        query:
          txAfter !== undefined
            ? { order: 'asc', limit: String(PAGE + 1), after: String(txAfter) }
            : {
                order: 'desc',
                limit: String(PAGE + 1),
                ...(txBefore !== undefined ? { before: String(txBefore) } : {}),
              },
      }),
    ),
    answer(one.holdings.$get({ param: { party } })),
    answer(one['transfer-instructions'].$get({ param: { party }, query: {} })),
    answer(one.activities.$get({ param: { party }, query: { page_size: String(PAGE) } })),
  ]);
  const subRows = subs.status === 200 ? await submissionTableData(c, subs.body.items) : undefined;
  // Newest first; one more than a page read to know whether there is another page that way.
  const txs = history.status === 200 ? history.body.items : [];
  const more = txs.length > PAGE;
  const shown = (txAfter !== undefined ? txs.slice(0, PAGE).reverse() : txs.slice(0, PAGE)) as typeof txs;
  const olderTx = (txAfter !== undefined || more) && shown.length > 0 ? shown.at(-1)?.offset : undefined;
  const newerTx =
    (txBefore !== undefined || (txAfter !== undefined && more)) && shown.length > 0
      ? shown[0]?.offset
      : undefined;
  return c.html(
    <Page title="Party" viewer={viewer} active="/console/parties">
      <dl class="facts">
        <dt>Party</dt>
        <dd>
          <Id value={party} full testid="party-id" />
        </dd>
        <dt>{view?.layout === 'separate' ? 'Namespace key' : 'Key'}</dt>
        <dd>
          {view && <Id value={view.keyFingerprint} href={`/console/keys/${view.keyFingerprint}`} />}
          {view?.layout === 'separate' && ' · signs its topology only, kept cold'}
        </dd>
        {view && (
          <>
            <dt>Signing</dt>
            <dd data-testid="party-threshold">
              {view.threshold} of {view.signingKeys.length} key{view.signingKeys.length === 1 ? '' : 's'}
              {view.serial > 1 ? ` · topology serial ${view.serial}` : ''}
            </dd>
          </>
        )}
        <dt>Synchronizer</dt>
        <dd>{view && <Id value={view.synchronizerId} full />}</dd>
        {allows(viewer.principal.role, 'admin') && (
          <>
            <dt>Audit</dt>
            <dd>
              <a href={`/console/audit?party=${p}`}>Its audit entries</a> ·{' '}
              <a href={`/console/audit?party=${p}&kind=signature&format=csv`} data-testid="party-audit-csv">
                Export its signatures (CSV)
              </a>
            </dd>
          </>
        )}
      </dl>
      {view && view.layout === 'separate' && <PartyKeys view={view} />}
      {rounds.status === 200 && rounds.body.items.length > 0 && (
        <section aria-labelledby="h-rounds">
          <h2 id="h-rounds">Open signature rounds</h2>
          <ul data-testid="party-rounds">
            {rounds.body.items.map((r) => {
              const keys = r.signatureRound?.keys ?? [];
              const signed = keys.filter((k) => k.signedAt !== null).length;
              return (
                <li>
                  <a href={`/console/submissions/${encodeURIComponent(r.id)}`}>{r.id}</a>: {signed} of{' '}
                  {r.signatureRound?.threshold ?? '?'} signed, awaiting{' '}
                  {keys
                    .filter((k) => k.signedAt === null)
                    .map((k) => k.label ?? `${k.fingerprint.slice(0, 12)}…`)
                    .join(', ')}
                  {r.signatureRound?.deadline ? (
                    <>
                      {' '}
                      · closes <Time at={r.signatureRound.deadline} />
                    </>
                  ) : null}{' '}
                  · <a href={`/console/submissions/${encodeURIComponent(r.id)}/sign`}>Sign it</a>
                </li>
              );
            })}
          </ul>
        </section>
      )}
      <section aria-labelledby="h-psubs">
        <h2 id="h-psubs">Submissions</h2>
        {subs.status !== 200 ? (
          <Empty>{apiMessage(subs)}</Empty>
        ) : subs.body.items.length === 0 ? (
          <Empty>None.</Empty>
        ) : (
          <>
            <div class="scroll-x">
              <SubmissionTable items={subs.body.items} what={subRows?.what ?? new Map()} />
            </div>
            {subs.body.nextCursor && (
              <p>
                <a
                  href={`/console/submissions?party=${p}&cursor=${encodeURIComponent(subs.body.nextCursor)}&prev=-`}
                  data-testid="older-submissions"
                >
                  Older submissions
                </a>
              </p>
            )}
          </>
        )}
      </section>
      <section aria-labelledby="h-ptx">
        <h2 id="h-ptx">Ledger transactions</h2>
        {history.status !== 200 ? (
          <Empty>{apiMessage(history)}</Empty>
        ) : shown.length === 0 ? (
          <Empty>None seen by the watcher {(txBefore ?? txAfter) ? 'on this page' : 'yet'}.</Empty>
        ) : (
          <table data-testid="party-transactions">
            <thead>
              <tr>
                <th scope="col">Offset</th>
                <th scope="col">Update id</th>
                <th scope="col">Command id</th>
                <th scope="col">Record time</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((t) => (
                <tr>
                  <td>
                    <a href={`/console/ledger/update?party=${p}&offset=${t.offset}`}>{t.offset}</a>
                  </td>
                  <td>
                    <Id
                      value={t.updateId}
                      href={`/console/ledger/update?party=${p}&updateId=${encodeURIComponent(t.updateId)}`}
                    />
                  </td>
                  <td>{t.commandId ? <Id value={t.commandId} /> : ''}</td>
                  <td>
                    <Time at={t.recordTime} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <nav class="pager" aria-label="Pages of ledger transactions">
          {(txBefore !== undefined || txAfter !== undefined) && (
            <a href={`/console/parties/${p}`} data-testid="newest-transactions">
              Newest
            </a>
          )}
          {newerTx !== undefined && (
            <a href={`/console/parties/${p}?txAfter=${newerTx}`} data-testid="newer-transactions" rel="prev">
              Newer
            </a>
          )}
          {olderTx !== undefined && (
            <a href={`/console/parties/${p}?txBefore=${olderTx}`} data-testid="older-transactions" rel="next">
              Older
            </a>
          )}
        </nav>
      </section>
      <section aria-labelledby="h-hold">
        <h2 id="h-hold">Holdings</h2>
        {holdings.status !== 200 ? (
          <Empty>{apiMessage(holdings)}</Empty>
        ) : holdings.body.instruments.length === 0 ? (
          <Empty>None.</Empty>
        ) : (
          <table data-testid="party-holdings">
            <thead>
              <tr>
                <th scope="col">Instrument</th>
                <th scope="col">Registry (admin)</th>
                <th scope="col">Total</th>
                <th scope="col">Locked</th>
                <th scope="col">Unlocked</th>
                <th scope="col">Holdings</th>
              </tr>
            </thead>
            <tbody>
              {holdings.body.instruments.map((b) => (
                <tr>
                  <td>{b.instrument.id}</td>
                  <td>
                    <Party value={b.instrument.admin} link={false} />
                  </td>
                  <td class="num">
                    <Amount value={b.total} instrument={b.instrument.id} />
                  </td>
                  <td class="num">
                    <Amount value={b.locked} instrument={b.instrument.id} />
                  </td>
                  <td class="num">
                    <Amount value={b.unlocked} instrument={b.instrument.id} />
                  </td>
                  <td class="num">{b.holdings.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="h-offers">
        <h2 id="h-offers">Pending transfer instructions</h2>
        {offers.status !== 200 ? (
          <Empty>{apiMessage(offers)}</Empty>
        ) : offers.body.items.length === 0 ? (
          <Empty>None.</Empty>
        ) : (
          <table data-testid="party-transfer-instructions">
            <thead>
              <tr>
                <th scope="col">Direction</th>
                <th scope="col">Counterparty</th>
                <th scope="col">Amount</th>
                <th scope="col">Instrument</th>
                <th scope="col">Memo</th>
                <th scope="col">Execute before</th>
              </tr>
            </thead>
            <tbody>
              {offers.body.items.map((t) => (
                <tr>
                  <td>{t.direction}</td>
                  <td>
                    <Party value={t.direction === 'incoming' ? t.sender : t.receiver} link={false} />
                  </td>
                  <td class="num">
                    <Amount value={t.amount} instrument={t.instrument.id} />
                  </td>
                  <td>{t.instrument.id}</td>
                  <td>{t.memo ?? ''}</td>
                  <td>
                    <Time at={t.executeBefore} />
                    {t.expired ? ' (expired)' : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="h-feed">
        <h2 id="h-feed">Activity feed</h2>
        {feed.status !== 200 ? (
          <Empty>{apiMessage(feed)}</Empty>
        ) : feed.body.activities.length === 0 ? (
          <Empty>No activity for this party on the newest page of the feed.</Empty>
        ) : (
          <ActivityTable activities={feed.body.activities} />
        )}
        {feed.status === 200 && feed.body.next_begin_after_id && (
          <p>
            <a
              href={`/console/ledger/activities?party=${p}&begin_after_id=${encodeURIComponent(feed.body.next_begin_after_id)}&page_size=${PAGE}`}
              data-testid="more-activities"
            >
              More of the feed
            </a>
          </p>
        )}
      </section>
    </Page>,
  );
}

interface PartyKeysView {
  threshold: number;
  signingKeys: { fingerprint: string; holder: 'quill' | 'external'; label: string | null }[];
  hosts: { participantUid: string; permission: 'confirmation' | 'observation'; host: string | null }[];
  confirmationThreshold: number | null;
}

/** An M-of-N party's signing keys (who holds each) and its hosts. */
function PartyKeys({ view }: { view: PartyKeysView }) {
  return (
    <section aria-labelledby="h-pkeys">
      <h2 id="h-pkeys">Signing keys and hosts</h2>
      <table data-testid="party-keys">
        <caption>
          Any {view.threshold} of these {view.signingKeys.length} keys sign a transaction
        </caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Label</th>
            <th scope="col">Held by</th>
          </tr>
        </thead>
        <tbody>
          {view.signingKeys.map((k) => (
            <tr>
              <td>
                {k.holder === 'quill' ? (
                  <Id value={k.fingerprint} href={`/console/keys/${k.fingerprint}`} />
                ) : (
                  <Id value={k.fingerprint} />
                )}
              </td>
              <td>{k.label ?? ''}</td>
              <td>{k.holder === 'quill' ? 'Quill (signs at once)' : 'an external signer'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {view.hosts.length > 0 && (
        <table data-testid="party-hosts">
          <caption>
            Hosted by {view.hosts.length} participant{view.hosts.length === 1 ? '' : 's'}
            {view.confirmationThreshold !== null ? `; ${view.confirmationThreshold} must confirm` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Participant</th>
              <th scope="col">Permission</th>
              <th scope="col">Host</th>
            </tr>
          </thead>
          <tbody>
            {view.hosts.map((h) => (
              <tr>
                <td>
                  <Id value={h.participantUid} />
                </td>
                <td>{h.permission}</td>
                <td>{h.host ?? 'this wallet’s participant'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

type KeyOption = { fingerprint: string; label?: string | null | undefined; algorithm: string };

/**
 * Onboarding an M-of-N party with keys Quill holds (the default layout: a new namespace key signs its topology
 * only). External signers' keys prove possession first, so they are onboarded through the API or the CLI.
 */
function GovernedForm({
  active,
  form,
  viewer,
}: {
  active: KeyOption[];
  form: { error: string; values: Record<string, string> } | undefined;
  viewer: Parameters<typeof Csrf>[0]['viewer'];
}) {
  const mine = form?.values.form === 'governed' ? form : undefined;
  return (
    <section aria-labelledby="h-governed">
      <h2 id="h-governed">Onboard a party with several keys</h2>
      <p class="hint">
        A new namespace key signs its topology only and can be kept cold; any {'M'} of the chosen keys sign
        its transactions. Keys held by external signers: <code>quill parties create</code> or{' '}
        <code>POST /wallet/v1/parties</code> (see docs/keys.md).
      </p>
      <form method="post" action="/console/parties" class="governed" data-testid="onboard-governed">
        <Csrf viewer={viewer} />
        <input type="hidden" name="form" value="governed" />
        <fieldset>
          <legend>Signing keys</legend>
          {active.length === 0 ? (
            <p>No active keys: generate some first.</p>
          ) : (
            active.map((k) => (
              <label class="check">
                <input
                  type="checkbox"
                  name={`sk_${k.fingerprint}`}
                  checked={mine?.values[`sk_${k.fingerprint}`] === 'on'}
                />
                {k.label ? `${k.label} · ` : ''}
                {k.fingerprint.slice(0, 16)}… ({k.algorithm})
              </label>
            ))
          )}
        </fieldset>
        <label>
          How many must sign
          <input
            name="threshold"
            type="number"
            min={1}
            max={20}
            required
            value={mine?.values.threshold ?? '1'}
          />
        </label>
        <label>
          Hint of the new party
          <input name="governedHint" required maxlength={185} value={mine?.values.governedHint ?? ''} />
        </label>
        <label>
          Other hosts (optional: names from LEDGER_HOSTS, comma-separated, name:observation to observe)
          <input name="hosts" maxlength={400} value={mine?.values.hosts ?? ''} />
        </label>
        <button type="submit">Create the party</button>
        <FormError message={mine?.error} />
      </form>
    </section>
  );
}

async function onboardGoverned(c: Ctx, f: Record<string, string>) {
  const back = (error: string) => partiesPage(c, { error, values: f });
  const signingKeys = Object.keys(f)
    .filter((k) => k.startsWith('sk_') && f[k] === 'on')
    .map((k) => ({ fingerprint: k.slice(3) }));
  if (signingKeys.length === 0) return back('Choose at least one signing key.');
  const threshold = Number(f.threshold);
  if (!Number.isInteger(threshold) || threshold < 1 || threshold > signingKeys.length) {
    return back(`How many must sign: a whole number from 1 to ${signingKeys.length} (the keys chosen).`);
  }
  if (!f.governedHint?.trim()) return back('Hint of the new party: required.');
  const hosts = (f.hosts ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h.length > 0)
    .map((h) => {
      const [host = '', permission = 'confirmation'] = h.split(':');
      return { host, permission };
    });
  if (hosts.some((h) => h.permission !== 'confirmation' && h.permission !== 'observation')) {
    return back('Other hosts: each is a name, or name:observation.');
  }
  const res = await answer(
    c.get('api').wallet.v1.parties.$post({
      json: {
        partyHint: f.governedHint.trim(),
        signingKeys,
        threshold,
        ...(hosts.length
          ? { hosts: hosts as { host: string; permission: 'confirmation' | 'observation' }[] }
          : {}),
      },
    }),
  );
  if (res.status === 201) return c.redirect(`/console/parties/${encodeURIComponent(res.body.partyId)}`, 303);
  if (res.status >= 400 && res.status < 500) return back(apiMessage(res));
  must(res, 'party');
  throw new PageError(503, 'unexpected answer');
}
