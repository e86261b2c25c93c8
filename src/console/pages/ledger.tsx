// Ledger: the interface's query side through the wallet's own ledger client — vetted packages with filters and
// page tokens (INTERFACE.md 4.1), updates between two offsets in either order (4.2), a transaction or update by
// offset or update id (4.3–4.5), the wallet's ledger user changed through an update mask (4.6), the activity feed
// paged by begin_after_id (4.8).
import type { InferResponseType } from 'hono/client';
import type { Child } from 'hono/jsx';
import { allows } from '../../auth/index.ts';
import { type Api, answer, type Ok } from '../client.ts';
import { apiMessage, type Ctx, formFields, must, PageError } from '../http.tsx';
import { ActivityTable, Csrf, Empty, Facts, FormError, Json, NavLinks, Page } from '../ui.tsx';

const SECTIONS = [
  ['/console/ledger/packages', 'Vetted packages (4.1)'],
  ['/console/ledger/updates', 'Updates between offsets (4.2)'],
  ['/console/ledger/update', 'Transaction or update by id or offset (4.3–4.5)'],
  ['/console/ledger/user', 'Ledger user (4.6)'],
  ['/console/ledger/activities', 'Activity feed (4.8)'],
] as const;

function Ledger(p: { c: Ctx; title: string; active: string; children?: Child; status?: number }) {
  return (
    <Page title={p.title} viewer={p.c.get('viewer')} active="/console/ledger">
      <NavLinks label="Ledger queries" class="subnav" links={SECTIONS} active={p.active} />
      {p.children}
    </Page>
  );
}

export function ledgerIndex(c: Ctx) {
  return c.html(
    <Ledger c={c} title="Ledger" active="">
      <p>Queries go through the wallet's own ledger client, as a party you name (or your own party).</p>
    </Ledger>,
  );
}

/** The party a read is made as: the operator's own, or the one named. */
function partyField(c: Ctx, value: string | undefined) {
  const own = c.get('principal').party;
  return (
    <label>
      Party
      <input name="party" value={value ?? own ?? ''} maxlength={255} readonly={own !== undefined} />
    </label>
  );
}

const qs = (o: Record<string, string | undefined>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) if (v) p.set(k, v);
  return p.toString();
};

/** The fields that have a value: an empty form field is not sent (to the API or in a link). */
function compact<T extends Record<string, string | undefined>>(o: T): { [K in keyof T]?: string & T[K] } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v)) as { [K in keyof T]?: string & T[K] };
}

type Outcome<A> = { ok: Ok<A> } | { error: string };

/** 4xx from the API (bad offsets, unknown ids) are shown beside the form; 5xx become the error page. */
function outcome<A extends { status: number; body: unknown }>(res: A, what: string): Outcome<A> {
  if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403)
    return { error: apiMessage(res) };
  return { ok: must(res, what) };
}

export async function packagesPage(c: Ctx) {
  const q = c.req.query();
  const asked = Object.keys(q).length > 0;
  let result: { ok: VettedPage } | { error: string } | undefined;
  if (asked) {
    if (q.pageSize && !/^\d{1,4}$/.test(q.pageSize))
      result = { error: 'Page size: a number from 1 to 1000.' };
    else {
      const query = compact({
        packageIds: q.packageIds,
        packageNamePrefixes: q.packageNamePrefixes,
        participantIds: q.participantIds,
        synchronizerIds: q.synchronizerIds,
        pageSize: q.pageSize,
        pageToken: q.pageToken,
      });
      result = outcome(
        await answer(c.get('api').wallet.v1.ledger['vetted-packages'].$get({ query })),
        'vetted packages',
      );
    }
  }
  const next = result && 'ok' in result ? result.ok.nextPageToken : undefined;
  return c.html(
    <Ledger c={c} title="Vetted packages" active="/console/ledger/packages">
      <form method="get" class="inline" data-testid="packages-form">
        <label>
          Package ids (comma-separated)
          <input name="packageIds" value={q.packageIds ?? ''} />
        </label>
        <label>
          Package name prefixes
          <input name="packageNamePrefixes" value={q.packageNamePrefixes ?? ''} />
        </label>
        <label>
          Participant ids
          <input name="participantIds" value={q.participantIds ?? ''} />
        </label>
        <label>
          Synchronizer ids
          <input name="synchronizerIds" value={q.synchronizerIds ?? ''} />
        </label>
        <label>
          Page size
          <input name="pageSize" inputmode="numeric" value={q.pageSize ?? ''} />
        </label>
        <button type="submit">Query</button>
        {result && 'error' in result && <FormError message={result.error} />}
      </form>
      {result && 'ok' in result && (
        <div data-testid="packages-result">
          <p>{(result.ok.vettedPackages ?? []).length} entries on this page.</p>
          <Json value={result.ok.vettedPackages ?? []} label="vetted packages" />
          {next ? (
            <p>
              <a data-testid="next-page" href={`/console/ledger/packages?${qs({ ...q, pageToken: next })}`}>
                Next page
              </a>
            </p>
          ) : (
            <p>Last page.</p>
          )}
        </div>
      )}
    </Ledger>,
    result && 'error' in result ? 400 : 200,
  );
}

export async function updatesPage(c: Ctx) {
  const q = c.req.query();
  const asked = q.beginExclusive !== undefined || q.endInclusive !== undefined;
  let result: { ok: { updates: LedgerUpdate[] } } | { error: string } | undefined;
  if (asked) {
    if (!/^\d{1,15}$/.test(q.beginExclusive ?? '') || !/^\d{1,15}$/.test(q.endInclusive ?? ''))
      result = { error: 'Offsets: whole numbers (begin 0 or more, end 1 or more).' };
    else {
      // Both offsets are checked above: whole numbers.
      const query = {
        ...compact({ party: q.party }),
        beginExclusive: q.beginExclusive,
        endInclusive: q.endInclusive,
        descendingOrder: q.order === 'desc' ? ('true' as const) : ('false' as const),
        limit: '100',
      };
      result = outcome(await answer(c.get('api').wallet.v1.ledger.updates.$get({ query })), 'updates');
    }
  }
  return c.html(
    <Ledger c={c} title="Updates between offsets" active="/console/ledger/updates">
      <form method="get" class="inline" data-testid="updates-form">
        {partyField(c, q.party)}
        <label>
          After offset (exclusive)
          <input name="beginExclusive" inputmode="numeric" value={q.beginExclusive ?? '0'} />
        </label>
        <label>
          Up to offset (inclusive)
          <input name="endInclusive" inputmode="numeric" value={q.endInclusive ?? ''} />
        </label>
        <label>
          Order
          <select name="order">
            <option value="asc">ascending</option>
            <option value="desc" selected={q.order === 'desc'}>
              descending
            </option>
          </select>
        </label>
        <button type="submit">Query</button>
        {result && 'error' in result && <FormError message={result.error} />}
      </form>
      {result && 'ok' in result && <UpdateList updates={result.ok.updates} party={q.party ?? ''} />}
    </Ledger>,
    result && 'error' in result ? 400 : 200,
  );
}

type VettedPage = InferResponseType<Api['wallet']['v1']['ledger']['vetted-packages']['$get'], 200>;
/** One update as the ledger's contract types it ({ Transaction: { value } } and the other variants). */
type LedgerUpdate = InferResponseType<
  Api['wallet']['v1']['ledger']['updates']['$get'],
  200
>['updates'][number];

/** The kind, offset and update id of an update (a checkpoint has no update id). */
function describe(u: LedgerUpdate): { kind: string; offset: number; id: string | undefined } {
  if ('Transaction' in u) return { kind: 'Transaction', ...ids(u.Transaction.value) };
  if ('Reassignment' in u) return { kind: 'Reassignment', ...ids(u.Reassignment.value) };
  if ('TopologyTransaction' in u) return { kind: 'TopologyTransaction', ...ids(u.TopologyTransaction.value) };
  return { kind: 'OffsetCheckpoint', offset: u.OffsetCheckpoint.value.offset, id: undefined };
}

const ids = (v: { offset: number; updateId: string }) => ({ offset: v.offset, id: v.updateId });

function UpdateList(p: { updates: LedgerUpdate[]; party: string }) {
  if (p.updates.length === 0) return <Empty>No updates in this range for the party.</Empty>;
  return (
    <table data-testid="updates">
      <thead>
        <tr>
          <th scope="col">Offset</th>
          <th scope="col">Kind</th>
          <th scope="col">Update id</th>
        </tr>
      </thead>
      <tbody>
        {p.updates.map((u) => {
          const d = describe(u);
          return (
            <tr data-offset={d.offset}>
              <td>{d.offset}</td>
              <td>{d.kind}</td>
              <td class="mono">
                {d.id ? (
                  <a href={`/console/ledger/update?${qs({ party: p.party, updateId: d.id })}`}>{d.id}</a>
                ) : (
                  ''
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export async function updatePage(c: Ctx) {
  const q = c.req.query();
  const kind = q.kind === 'update' ? 'update' : 'transaction';
  let result: { ok: unknown } | { error: string } | undefined;
  const ledger = c.get('api').wallet.v1.ledger;
  const query = compact({ party: q.party });
  const updateId = q.updateId?.trim();
  const offset = q.offset?.trim();
  if (updateId) {
    if (kind === 'update')
      result = {
        error:
          'An update by id is not in the interface: look up a transaction by id, or an update by offset.',
      };
    else
      result = outcome(
        await answer(ledger.transactions[':updateId'].$get({ param: { updateId }, query })),
        'transaction',
      );
  } else if (offset) {
    if (!/^\d{1,15}$/.test(offset) || Number(offset) < 1)
      result = { error: 'Offset: a positive whole number.' };
    else if (kind === 'update')
      result = outcome(
        await answer(ledger.updates.offsets[':offset'].$get({ param: { offset }, query })),
        kind,
      );
    else result = outcome(await answer(ledger.offsets[':offset'].$get({ param: { offset }, query })), kind);
  } else if (q.party !== undefined) result = { error: 'Give an update id or an offset.' };
  return c.html(
    <Ledger c={c} title="Transaction or update" active="/console/ledger/update">
      <form method="get" class="inline" data-testid="update-form">
        {partyField(c, q.party)}
        <label>
          Update id
          <input name="updateId" value={q.updateId ?? ''} maxlength={512} />
        </label>
        <label>
          or offset
          <input name="offset" inputmode="numeric" value={q.offset ?? ''} />
        </label>
        <label>
          As
          <select name="kind">
            <option value="transaction">transaction (4.3, 4.4)</option>
            <option value="update" selected={kind === 'update'}>
              update (4.5)
            </option>
          </select>
        </label>
        <button type="submit">Look up</button>
        {result && 'error' in result && <FormError message={result.error} />}
      </form>
      {result && 'ok' in result && (
        <div data-testid="update-result">
          <Json value={result.ok} label="ledger answer" />
        </div>
      )}
    </Ledger>,
    result && 'error' in result ? 400 : 200,
  );
}

export async function userPage(
  c: Ctx,
  form?: { error: string; status: number; values?: Record<string, string> },
) {
  const viewer = c.get('viewer');
  const user = must(await answer(c.get('api').wallet.v1.ledger.user.$get()), 'ledger user').user;
  const canEdit = allows(viewer.principal.role, 'admin') && viewer.principal.party === undefined;
  const annotations = Object.entries(user.metadata?.annotations ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  return c.html(
    <Ledger c={c} title="Ledger user" active="/console/ledger/user">
      <Facts
        rows={[
          ['User id', <span class="mono">{user.id}</span>],
          [
            'Primary party',
            <span class="mono wrap" data-testid="primary-party">
              {user.primaryParty || '—'}
            </span>,
          ],
          ['Deactivated', user.isDeactivated ? 'yes' : 'no'],
          [
            'Resource version',
            <span data-testid="resource-version">{user.metadata?.resourceVersion ?? ''}</span>,
          ],
          ['Annotations', <pre class="json">{annotations || '—'}</pre>],
        ]}
      />
      {canEdit && (
        <form method="post" action="/console/ledger/user" data-testid="user-form">
          <Csrf viewer={viewer} />
          <input
            type="hidden"
            name="resourceVersion"
            value={form?.values?.resourceVersion ?? user.metadata?.resourceVersion ?? ''}
          />
          <label>
            Primary party
            <input
              name="primaryParty"
              value={form?.values?.primaryParty ?? user.primaryParty ?? ''}
              maxlength={512}
            />
          </label>
          <label>
            Annotations (one key=value per line; an empty value removes the key)
            <textarea name="annotations" rows={4}>
              {form?.values?.annotations ?? annotations}
            </textarea>
          </label>
          <button type="submit">Update the user</button>
          <FormError message={form?.error} />
        </form>
      )}
    </Ledger>,
    (form?.status ?? 200) as 200,
  );
}

export async function updateUser(c: Ctx) {
  const f = await formFields(c);
  const annotations: Record<string, string> = {};
  for (const line of (f.annotations ?? '').split(/\r?\n/)) {
    if (!line.trim()) continue;
    const at = line.indexOf('=');
    if (at <= 0)
      return userPage(c, {
        error: `Annotations: "${line.slice(0, 60)}" is not key=value.`,
        status: 400,
        values: f,
      });
    annotations[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  if (!/^\d{0,20}$/.test(f.resourceVersion ?? ''))
    return userPage(c, { error: 'The form is damaged: reload the page.', status: 400 });
  const res = await answer(
    c.get('api').wallet.v1.ledger.user.$patch({
      json: {
        user: {
          primaryParty: (f.primaryParty ?? '').trim(),
          metadata: { resourceVersion: f.resourceVersion ?? '', annotations },
        },
        updateMask: { paths: ['primary_party', 'metadata.annotations'] },
      },
    }),
  );
  if (res.status === 200) return c.redirect('/console/ledger/user', 303);
  if (res.status === 409)
    return userPage(c, {
      error: `Conflict: ${apiMessage(res)} Your change was not applied; the form now shows the current user.`,
      status: 409,
    });
  if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403)
    return userPage(c, { error: apiMessage(res), status: 400, values: f });
  must(res, 'ledger user');
  throw new PageError(503, 'unexpected answer');
}

type ActivityPage = InferResponseType<Api['wallet']['v1']['parties'][':party']['activities']['$get'], 200>;

export async function activitiesPage(c: Ctx) {
  const q = c.req.query();
  const party = q.party?.trim() || c.get('principal').party;
  let result: { ok: ActivityPage } | { error: string } | undefined;
  if (q.party !== undefined || q.begin_after_id !== undefined) {
    if (!party) result = { error: 'Party: required.' };
    else if (q.page_size && !/^\d{1,4}$/.test(q.page_size))
      result = { error: 'Page size: a number from 1 to 1000.' };
    else {
      const query = { ...compact({ begin_after_id: q.begin_after_id }), page_size: q.page_size || '20' };
      const feed = c.get('api').wallet.v1.parties[':party'].activities;
      result = outcome(await answer(feed.$get({ param: { party }, query })), 'activity feed');
    }
  }
  const next = result && 'ok' in result ? result.ok.next_begin_after_id : null;
  return c.html(
    <Ledger c={c} title="Activity feed" active="/console/ledger/activities">
      <form method="get" class="inline" data-testid="activities-form">
        {partyField(c, q.party)}
        <label>
          After event id
          <input name="begin_after_id" value={q.begin_after_id ?? ''} maxlength={1024} />
        </label>
        <label>
          Page size
          <input name="page_size" inputmode="numeric" value={q.page_size ?? '20'} />
        </label>
        <button type="submit">Read</button>
        {result && 'error' in result && <FormError message={result.error} />}
      </form>
      {result && 'ok' in result && (
        <div data-testid="activities-result">
          {result.ok.activities.length === 0 ? (
            <Empty>No activity of this party on this page of the feed.</Empty>
          ) : (
            <ActivityTable activities={result.ok.activities} />
          )}
          {next ? (
            <p>
              <a
                data-testid="next-activities"
                href={`/console/ledger/activities?${qs({ party, begin_after_id: next, page_size: q.page_size || '20' })}`}
              >
                Next page (after {next})
              </a>
            </p>
          ) : (
            <p>End of the feed.</p>
          )}
        </div>
      )}
    </Ledger>,
    result && 'error' in result ? 400 : 200,
  );
}
