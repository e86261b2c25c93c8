// The wallet's ledger user (INTERFACE.md 4.6): its primary party and annotations, changed through an update mask
// (an unscoped admin); a stale resourceVersion is shown as a conflict. The primary party is chosen from the wallet's
// parties (or typed under "other…"), a change of it is confirmed first, the API checks that the ledger knows the
// party and writes the change to the audit chain (`ledger.user.update`). Reads are time-boxed.
import { allows } from '../../../auth/index.ts';
import { answer } from '../../client.ts';
import { PageError } from '../../errors.ts';
import { apiMessage, type Ctx, formFields, must } from '../../http.tsx';
import { Csrf, Facts, FormError } from '../../ui.tsx';
import { Ledger } from './layout.tsx';
import { isLate, LEDGER_LATE, ledgerAnswer } from './query.ts';

type UserForm = { error?: string; status: number; values?: Record<string, string>; confirm?: boolean };
const OTHER = '__other__';

export async function userPage(c: Ctx, form?: UserForm) {
  const viewer = c.get('viewer');
  const api = c.get('api');
  const [read, parties] = await Promise.all([
    ledgerAnswer(api.wallet.v1.ledger.user.$get()),
    answer(api.wallet.v1.parties.$get()),
  ]);
  if (isLate(read))
    return c.html(
      <Ledger c={c} title="Ledger user" active="/console/ledger/user">
        <FormError message={LEDGER_LATE} />
      </Ledger>,
      503,
    );
  const user = must(read, 'ledger user').user;
  const known = parties.status === 200 ? parties.body.items.map((p) => p.partyId) : [];
  const canEdit = allows(viewer.principal.role, 'admin') && viewer.principal.party === undefined;
  const current = user.primaryParty ?? '';
  const wanted = form?.values ? chosenParty(form.values) : current;
  const listed = wanted === '' || known.includes(wanted);
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
      {canEdit && form?.confirm && (
        <form method="post" action="/console/ledger/user" data-testid="user-confirm" class="danger">
          <Csrf viewer={viewer} />
          <p data-testid="user-change">
            <strong>{user.id}</strong>: primary party <span class="mono wrap">{current || '(none)'}</span> →{' '}
            <span class="mono wrap">{wanted || '(none)'}</span>
          </p>
          {!listed && (
            <p class="error" data-testid="not-quill-party">
              {wanted} is not one of this wallet's parties: Quill holds no key for it.
            </p>
          )}
          <input type="hidden" name="resourceVersion" value={form.values?.resourceVersion ?? ''} />
          <input type="hidden" name="primaryParty" value={wanted === '' ? '' : listed ? wanted : OTHER} />
          <input type="hidden" name="otherParty" value={listed ? '' : wanted} />
          <input type="hidden" name="annotations" value={form.values?.annotations ?? ''} />
          <input type="hidden" name="confirmed" value="yes" />
          <button type="submit">Confirm the change</button> <a href="/console/ledger/user">Cancel</a>
        </form>
      )}
      {canEdit && !form?.confirm && (
        <form method="post" action="/console/ledger/user" data-testid="user-form">
          <Csrf viewer={viewer} />
          <input
            type="hidden"
            name="resourceVersion"
            value={form?.values?.resourceVersion ?? user.metadata?.resourceVersion ?? ''}
          />
          <label>
            Primary party
            <select name="primaryParty">
              <option value="" selected={wanted === ''}>
                (none)
              </option>
              {[...new Set([...known, ...(current && !known.includes(current) ? [current] : [])])].map(
                (p) => (
                  <option value={p} selected={wanted === p}>
                    {p}
                    {known.includes(p) ? '' : " (not one of this wallet's parties)"}
                  </option>
                ),
              )}
              <option value={OTHER} selected={!listed && wanted !== current}>
                other…
              </option>
            </select>
          </label>
          <label>
            Other party (with "other…")
            <input
              name="otherParty"
              value={!listed && wanted !== current ? wanted : ''}
              maxlength={512}
              autocomplete="off"
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

/** The primary party the form asks for: a listed one, or the one typed under "other…". */
function chosenParty(f: Record<string, string>): string {
  return (f.primaryParty === OTHER ? (f.otherParty ?? '') : (f.primaryParty ?? '')).trim();
}

export async function updateUser(c: Ctx) {
  const f = await formFields(c);
  const primaryParty = chosenParty(f);
  if (f.primaryParty === OTHER && !primaryParty)
    return userPage(c, { error: 'Other party: type the party id.', status: 400, values: f });
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
  if (f.confirmed !== 'yes') {
    // A change of the primary party is confirmed first; annotations alone go through.
    const read = await ledgerAnswer(c.get('api').wallet.v1.ledger.user.$get());
    const current = read.status === 200 ? (read.body.user.primaryParty ?? '') : undefined;
    if (current !== primaryParty) return userPage(c, { status: 200, values: f, confirm: true });
  }
  const res = await ledgerAnswer(
    c.get('api').wallet.v1.ledger.user.$patch({
      json: {
        user: {
          primaryParty,
          metadata: { resourceVersion: f.resourceVersion ?? '', annotations },
        },
        updateMask: { paths: ['primary_party', 'metadata.annotations'] },
      },
    }),
  );
  if (res.status === 200) return c.redirect('/console/ledger/user', 303);
  if (isLate(res)) return userPage(c, { error: LEDGER_LATE, status: 503, values: f });
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
