// Parties: the list, onboarding from a key, and a party's page (its submissions, ledger transactions, activity
// feed entries, holdings per instrument and pending transfer instructions).
import { allows } from '../../auth/index.ts';
import { answer } from '../client.ts';
import { PageError } from '../errors.ts';
import { apiMessage, type Ctx, formFields, must } from '../http.tsx';
import { ActivityTable, Csrf, Empty, FormError, Id, Page, Time } from '../ui.tsx';
import { SubmissionTable } from './submissions.tsx';

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
      {canOnboard && (
        <section aria-labelledby="h-onboard">
          <h2 id="h-onboard">Onboard a party</h2>
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
            <FormError message={form?.error} />
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
                <th scope="col">Key</th>
                <th scope="col">Synchronizer</th>
              </tr>
            </thead>
            <tbody>
              {parties.items.map((p) => (
                <tr data-party={p.partyId}>
                  <td>
                    <Id value={p.partyId} href={`/console/parties/${encodeURIComponent(p.partyId)}`} />
                  </td>
                  <td>
                    <Id value={p.keyFingerprint} href={`/console/keys/${p.keyFingerprint}`} />
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
  const [subs, history, holdings, offers, feed] = await Promise.all([
    answer(api.wallet.v1.submissions.$get({ query: { party, limit: '20' } })),
    answer(one.transactions.$get({ param: { party }, query: { order: 'desc', limit: '20' } })),
    answer(one.holdings.$get({ param: { party } })),
    answer(one['transfer-instructions'].$get({ param: { party }, query: {} })),
    answer(one.activities.$get({ param: { party }, query: { page_size: '100' } })),
  ]);
  return c.html(
    <Page title="Party" viewer={viewer} active="/console/parties">
      <dl class="facts">
        <dt>Party</dt>
        <dd class="mono wrap" data-testid="party-id">
          {party}
        </dd>
        <dt>Key</dt>
        <dd>{view && <Id value={view.keyFingerprint} href={`/console/keys/${view.keyFingerprint}`} />}</dd>
        <dt>Synchronizer</dt>
        <dd class="mono wrap">{view?.synchronizerId}</dd>
      </dl>
      <section aria-labelledby="h-psubs">
        <h2 id="h-psubs">Submissions</h2>
        {subs.status !== 200 ? (
          <Empty>{apiMessage(subs)}</Empty>
        ) : subs.body.items.length === 0 ? (
          <Empty>None.</Empty>
        ) : (
          <SubmissionTable items={subs.body.items} />
        )}
      </section>
      <section aria-labelledby="h-ptx">
        <h2 id="h-ptx">Ledger transactions</h2>
        {history.status !== 200 ? (
          <Empty>{apiMessage(history)}</Empty>
        ) : history.body.items.length === 0 ? (
          <Empty>None seen by the watcher yet.</Empty>
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
              {history.body.items.map((t) => (
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
                  <td class="mono">{t.commandId ?? ''}</td>
                  <td>
                    <Time at={t.recordTime} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
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
                  <td class="mono wrap">{b.instrument.admin}</td>
                  <td class="num">{b.total}</td>
                  <td class="num">{b.locked}</td>
                  <td class="num">{b.unlocked}</td>
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
                  <td class="mono wrap">{t.direction === 'incoming' ? t.sender : t.receiver}</td>
                  <td class="num">{t.amount}</td>
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
      </section>
    </Page>,
  );
}
