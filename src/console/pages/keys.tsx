// Keys: the list, generate or adopt (on the backends the API says can), a key's page (public key, parties, the
// signatures it made), disable with a typed confirmation. Every action goes through the wallet API as the operator,
// so its role and party rules apply.

import { allows } from '../../auth/index.ts';
import { cursorParam, readAudit } from '../audit-read.ts';
import { answer } from '../client.ts';
import type { ConsoleDeps } from '../deps.ts';
import { PageError } from '../errors.ts';
import { apiMessage, type Ctx, formFields, must } from '../http.tsx';
import { Csrf, Empty, FormError, Id, Page, Party, Status, Time } from '../ui.tsx';

const ALGORITHMS = ['ed25519', 'p256', 'p384', 'secp256k1'] as const;

type KeyForm = { error: string; values: Record<string, string>; adopt?: boolean };

export async function keysPage(c: Ctx, form?: KeyForm) {
  const api = c.get('api');
  const viewer = c.get('viewer');
  const keys = must(await answer(api.wallet.v1.keys.$get()), 'keys');
  const parties = await answer(api.wallet.v1.parties.$get());
  const byKey = new Map<string, string[]>();
  for (const p of parties.status === 200 ? parties.body.items : []) {
    byKey.set(p.keyFingerprint, [...(byKey.get(p.keyFingerprint) ?? []), p.partyId]);
  }
  const canCreate = allows(viewer.principal.role, 'admin') && viewer.principal.party === undefined;
  const making = keys.backends.filter((b) => b.configured && b.generate);
  const adopting = keys.backends.filter((b) => b.configured && b.adopt);
  return c.html(
    <Page title="Keys" viewer={viewer} active="/console/keys">
      {canCreate && making.length > 0 && (
        <section aria-labelledby="h-gen">
          <h2 id="h-gen">Generate a key</h2>
          <form method="post" action="/console/keys" class="inline" data-testid="generate-key">
            <Csrf viewer={viewer} />
            <label>
              Algorithm
              <select name="algorithm">
                {ALGORITHMS.map((a) => (
                  <option value={a} selected={form?.values.algorithm === a}>
                    {a}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Label
              <input name="label" maxlength={200} value={form?.values.label ?? ''} />
            </label>
            <label>
              Backend
              <select name="backend">
                <option value="">default</option>
                {making.map((b) => (
                  <option value={b.name} selected={form?.values.backend === b.name} title={b.summary}>
                    {b.name}
                    {b.default ? ' (default)' : ''}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit">Generate</button>
            <FormError message={form && !form.adopt ? form.error : undefined} />
          </form>
        </section>
      )}
      {canCreate && adopting.length > 0 && (
        <section aria-labelledby="h-adopt">
          <h2 id="h-adopt">Adopt a key made elsewhere</h2>
          <form method="post" action="/console/keys/adopt" class="inline" data-testid="adopt-key">
            <Csrf viewer={viewer} />
            <label>
              Backend
              <select name="backend">
                {adopting.map((b) => (
                  <option value={b.name} selected={form?.values.backend === b.name} title={b.summary}>
                    {b.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Key
              <input name="ref" maxlength={300} placeholder="label:treasury" value={form?.values.ref ?? ''} />
            </label>
            <label>
              Label
              <input name="label" maxlength={200} value={form?.values.label ?? ''} />
            </label>
            <button type="submit">Adopt</button>
            <FormError message={form?.adopt ? form.error : undefined} />
          </form>
        </section>
      )}
      {canCreate && (
        <p class="muted" data-testid="key-backends">
          Key backends:{' '}
          {keys.backends
            .map((b) => `${b.name} — ${b.configured ? b.summary : `not configured (${b.setUp ?? ''})`}`)
            .join('; ')}
        </p>
      )}
      <section aria-labelledby="h-keys">
        <h2 id="h-keys">All keys</h2>
        {keys.items.length === 0 ? (
          <Empty>No keys yet.</Empty>
        ) : (
          <table data-testid="keys">
            <thead>
              <tr>
                <th scope="col">Fingerprint</th>
                <th scope="col">Label</th>
                <th scope="col">Algorithm</th>
                <th scope="col">Backend</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Parties</th>
              </tr>
            </thead>
            <tbody>
              {keys.items.map((k) => (
                <tr data-fingerprint={k.fingerprint}>
                  <td>
                    <Id value={k.fingerprint} href={`/console/keys/${k.fingerprint}`} />
                  </td>
                  <td>{k.label ?? ''}</td>
                  <td>{k.algorithm}</td>
                  <td>{k.backend}</td>
                  <td>
                    <Status status={k.status} />
                  </td>
                  <td>
                    <Time at={k.createdAt} />
                  </td>
                  <td>
                    {(byKey.get(k.fingerprint) ?? []).map((p) => (
                      <Party value={p} />
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {keys.problems.length > 0 && (
          <p class="error">
            Key files that do not open: {keys.problems.map((p) => `${p.file} (${p.problem})`).join(', ')}
          </p>
        )}
      </section>
    </Page>,
    form ? 400 : 200,
  );
}

export async function generateKey(c: Ctx) {
  const f = await formFields(c);
  const algorithm = ALGORITHMS.find((a) => a === f.algorithm);
  if (!algorithm) return keysPage(c, { error: 'Choose one of the algorithms offered.', values: f });
  const backend = f.backend || undefined;
  const res = await answer(
    c.get('api').wallet.v1.keys.$post({
      json: {
        algorithm,
        ...(f.label?.trim() ? { label: f.label.trim() } : {}),
        ...(backend ? { backend } : {}),
      },
    }),
  );
  if (res.status === 201) return c.redirect(`/console/keys/${res.body.fingerprint}`, 303);
  if (res.status >= 400 && res.status < 500) return keysPage(c, { error: apiMessage(res), values: f });
  must(res, 'key');
  throw new PageError(503, 'unexpected answer');
}

export async function adoptKey(c: Ctx) {
  const f = await formFields(c);
  if (!f.backend || !f.ref?.trim())
    return keysPage(c, {
      error: 'Name the backend and the key (for pkcs11: label:<label> or id:<hex>).',
      values: f,
      adopt: true,
    });
  const res = await answer(
    c.get('api').wallet.v1.keys.adopt.$post({
      json: { backend: f.backend, ref: f.ref.trim(), ...(f.label?.trim() ? { label: f.label.trim() } : {}) },
    }),
  );
  if (res.status === 201) return c.redirect(`/console/keys/${res.body.fingerprint}`, 303);
  if (res.status >= 400 && res.status < 500)
    return keysPage(c, { error: apiMessage(res), values: f, adopt: true });
  must(res, 'key');
  throw new PageError(503, 'unexpected answer');
}

const FP = /^1220[0-9a-f]{64}$/;

/** What disabling a key does to each status its parties' submissions can be in. */
const EFFECT: Record<string, string> = {
  awaiting_approval: 'awaiting approval: cannot be approved, may be rejected',
  accepted: 'accepted: will end rejected (KEY_DISABLED)',
  queued: 'queued: will end rejected (KEY_DISABLED)',
  executing: 'in flight: will only be watched for its outcome',
};

type Affecting = { id: string; status: string; party: string };

/** The key's parties' submissions that are not final (newest 50 of each status). */
async function inFlight(c: Ctx, parties: string[]): Promise<Affecting[]> {
  const api = c.get('api');
  const lists = await Promise.all(
    parties.flatMap((party) =>
      Object.keys(EFFECT).map(async (status) => {
        const res = await answer(
          api.wallet.v1.submissions.$get({ query: { party, status: status as 'queued', limit: '50' } }),
        );
        return res.status === 200 ? res.body.items : [];
      }),
    ),
  );
  return lists.flat().map((r) => ({ id: r.id, status: r.status, party: r.party }));
}

/** What disabling the key affects: its parties and their submissions not yet final, by what happens to them. */
function Affected(p: { parties: string[]; items: Affecting[] }) {
  return (
    <div data-testid="affected">
      <p>
        <strong>This affects</strong>{' '}
        {p.parties.length === 0
          ? 'no party (no party uses this key).'
          : `${p.parties.length === 1 ? 'party' : 'parties'} ${p.parties.join(', ')}: they can no longer sign.`}
      </p>
      {p.items.length === 0 ? (
        <p data-testid="affected-none">No submission of these parties is waiting or in flight.</p>
      ) : (
        <ul data-testid="affected-submissions">
          {Object.entries(EFFECT).map(([status, effect]) => {
            const items = p.items.filter((i) => i.status === status);
            return items.length === 0 ? null : (
              <li data-status-group={status}>
                {items.length} {effect}:{' '}
                {items.slice(0, 10).map((i) => (
                  <>
                    <Id value={i.id} href={`/console/submissions/${i.id}`} />{' '}
                  </>
                ))}
                {items.length > 10 ? '…' : ''}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

export async function keyPage(
  c: Ctx,
  deps: ConsoleDeps,
  fingerprint: string,
  form?: { error: string; values?: Record<string, string> },
) {
  if (!FP.test(fingerprint))
    throw new PageError(404, 'No key: a fingerprint is 1220 followed by 64 hex digits.');
  const api = c.get('api');
  const viewer = c.get('viewer');
  const key = must(await answer(api.wallet.v1.keys[':fingerprint'].$get({ param: { fingerprint } })), 'key');
  const parties = await answer(api.wallet.v1.parties.$get());
  const mine = (parties.status === 200 ? parties.body.items : []).filter(
    (p) => p.keyFingerprint === fingerprint,
  );
  // 50 to a page (issue 30 item 10): a key with thousands of signatures stays a small page.
  const before = cursorParam(c.req.query('before'));
  const after = before === undefined ? cursorParam(c.req.query('after')) : undefined;
  const audit = await readAudit(deps, viewer.principal, {
    before,
    after,
    want: 50,
    keep: (r) => r.kind === 'signature' && r.fields.keyFingerprint === fingerprint,
  });
  const signatures = audit.rows;
  const confirm = fingerprint.slice(-8);
  const admin = allows(viewer.principal.role, 'admin');
  const affected =
    key.status === 'active' && admin
      ? await inFlight(
          c,
          mine.map((p) => p.partyId),
        )
      : [];
  const disabledBy =
    key.status === 'disabled'
      ? (
          await readAudit(deps, viewer.principal, {
            want: 1,
            keep: (r) => r.kind === 'key.disable' && r.fields.keyFingerprint === fingerprint,
          })
        ).rows[0]
      : undefined;
  return c.html(
    <Page title={`Key ${key.label ?? fingerprint.slice(0, 12)}`} viewer={viewer} active="/console/keys">
      <dl class="facts">
        <dt>Fingerprint</dt>
        <dd>
          <Id value={key.fingerprint} full testid="fingerprint" />
        </dd>
        <dt>Status</dt>
        <dd>
          <Status status={key.status} />
          {disabledBy && (
            <span data-testid="disabled-by">
              {' '}
              by {disabledBy.fields.actor} at <Time at={disabledBy.fields.at} />
              {disabledBy.fields.reason ? `: ${disabledBy.fields.reason}` : ''}
            </span>
          )}
        </dd>
        <dt>Algorithm</dt>
        <dd>
          {key.algorithm} ({key.keySpec})
        </dd>
        <dt>Backend</dt>
        <dd>{key.backend}</dd>
        <dt>Created</dt>
        <dd>
          <Time at={key.createdAt} />
        </dd>
        <dt>Public key (DER SPKI, base64)</dt>
        <dd>
          <Id value={key.publicKey} full />
        </dd>
        <dt>Parties</dt>
        <dd>
          {mine.length === 0 ? 'none' : mine.map((p) => <Party value={p.partyId} />)}
          {key.status === 'active' && admin && viewer.principal.party === undefined && (
            <>
              {' '}
              <a href={`/console/parties?key=${fingerprint}`} data-testid="onboard-with-key">
                Onboard a party with this key
              </a>
            </>
          )}
        </dd>
      </dl>
      <section aria-labelledby="h-sigs">
        <h2 id="h-sigs">Signatures made with this key</h2>
        {audit.status !== 200 ? (
          <Empty>The audit chain needs an unscoped admin.</Empty>
        ) : signatures.length === 0 ? (
          <Empty>{audit.older ? 'None among these entries of the chain.' : 'None yet.'}</Empty>
        ) : (
          <table data-testid="key-signatures">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Submission</th>
                <th scope="col">Hash</th>
                <th scope="col">Asked by</th>
                <th scope="col">Stored</th>
              </tr>
            </thead>
            <tbody>
              {signatures.map((s) => (
                <tr data-entry={s.id}>
                  <td>
                    <Time at={s.fields.at} />
                  </td>
                  <td>
                    {s.fields.submission ? (
                      <Id value={s.fields.submission} href={`/console/submissions/${s.fields.submission}`} />
                    ) : (
                      ''
                    )}
                  </td>
                  <td>
                    <Id value={s.fields.hash ?? ''} />
                  </td>
                  <td>{s.fields.actor}</td>
                  <td>{s.fields.stored}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <nav class="pager" aria-label="Pages of signatures">
          {(before !== undefined || after !== undefined) && (
            <a href={`/console/keys/${fingerprint}`} data-testid="newest">
              Newest
            </a>
          )}
          {audit.newer && (
            <a href={`/console/keys/${fingerprint}?after=${audit.newer}`} data-testid="newer" rel="prev">
              Newer
            </a>
          )}
          {audit.older && (
            <a href={`/console/keys/${fingerprint}?before=${audit.older}`} data-testid="older" rel="next">
              Older
            </a>
          )}
        </nav>
      </section>
      {key.status === 'active' && admin && (
        <section aria-labelledby="h-disable" class="danger">
          <h2 id="h-disable">Disable this key</h2>
          <p>
            A disabled key signs nothing more, and its queued submissions are not sent. This cannot be undone
            from the console. Type the last eight characters of the fingerprint (
            <span class="mono">{confirm}</span>) to confirm, and say why (it goes into the audit chain).
          </p>
          <Affected parties={mine.map((p) => p.partyId)} items={affected} />
          <form method="post" action={`/console/keys/${fingerprint}/disable`} data-testid="disable-key">
            <Csrf viewer={viewer} />
            <label>
              Reason
              <input
                name="reason"
                autocomplete="off"
                required
                minlength={3}
                maxlength={500}
                value={form?.values?.reason ?? ''}
              />
            </label>
            <label>
              Confirmation
              <input name="confirm" autocomplete="off" required />
            </label>
            <button type="submit" class="danger">
              Disable key
            </button>
            <FormError message={form?.error} />
          </form>
        </section>
      )}
    </Page>,
    form ? 400 : 200,
  );
}

export async function disableKey(c: Ctx, deps: ConsoleDeps, fingerprint: string) {
  if (!FP.test(fingerprint))
    throw new PageError(404, 'No key: a fingerprint is 1220 followed by 64 hex digits.');
  const f = await formFields(c);
  const reason = (f.reason ?? '').trim();
  if (reason.length < 3 || reason.length > 500)
    return keyPage(c, deps, fingerprint, {
      error: 'Say why the key is disabled (3 to 500 characters): the key stays active.',
      values: f,
    });
  if ((f.confirm ?? '').trim() !== fingerprint.slice(-8))
    return keyPage(c, deps, fingerprint, {
      error: 'The confirmation does not match: the key stays active.',
      values: f,
    });
  const res = await answer(
    c.get('api').wallet.v1.keys[':fingerprint'].disable.$post({ param: { fingerprint }, json: { reason } }),
  );
  if (res.status >= 400 && res.status < 500 && res.status !== 404)
    return keyPage(c, deps, fingerprint, { error: apiMessage(res), values: f });
  must(res, 'key');
  return c.redirect(`/console/keys/${fingerprint}`, 303);
}
