// The wallet's ledger user (INTERFACE.md 4.6): its primary party and annotations, changed through an update mask
// (an unscoped admin); a stale resourceVersion is shown as a conflict.
import { allows } from '../../../auth/index.ts';
import { answer } from '../../client.ts';
import { PageError } from '../../errors.ts';
import { apiMessage, type Ctx, formFields, must } from '../../http.tsx';
import { Csrf, Facts, FormError } from '../../ui.tsx';
import { Ledger } from './layout.tsx';

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
