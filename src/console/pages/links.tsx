// Sign-in links for new operators (an unscoped admin): subject, role, optional party and lifetime; the link is shown
// once, on the answer to the POST, and never stored. The API mints it and writes `console.link` to the audit chain
// (who let whom in, as what, until when), as `quill console link` does from the command line.
import { ROLES } from '../../auth/index.ts';
import { answer } from '../client.ts';
import type { ConsoleDeps } from '../deps.ts';
import { PageError } from '../errors.ts';
import { apiMessage, type Ctx, formFields, must } from '../http.tsx';
import { Csrf, FormError, Page, Time } from '../ui.tsx';

const LIFETIMES: [string, number][] = [
  ['15 minutes', 15 * 60],
  ['1 hour', 3600],
  ['4 hours', 4 * 3600],
  ['24 hours', 24 * 3600],
];

type Minted = { link: string; subject: string; role: string; party?: string; expiresAt: string };

export async function linksPage(
  c: Ctx,
  form?: { error?: string; values: Record<string, string>; minted?: Minted },
) {
  const viewer = c.get('viewer');
  // The API's rule for minting (an admin without party scope), said before a form is offered or read.
  const { role, party } = viewer.principal;
  if (role !== 'admin' || party !== undefined)
    throw new PageError(403, 'Sign-in links need an admin without party scope.');
  const known = must(await answer(c.get('api').wallet.v1.parties.$get()), 'parties').items.map(
    (p) => p.partyId,
  );
  const v = form?.values ?? {};
  const m = form?.minted;
  return c.html(
    <Page title="Sign-in links" viewer={viewer} active="/console/links">
      {m && (
        <section aria-labelledby="h-minted" class="notice" data-testid="minted">
          <h2 id="h-minted">The link for {m.subject}</h2>
          <p>
            Send it to {m.subject} now: it is shown only this once, signs in once, as {m.role}
            {m.party ? ` for ${m.party}` : ' for every party'}, until <Time at={m.expiresAt} />.
          </p>
          <label>
            Sign-in link
            <input readonly value={m.link} class="mono" data-testid="minted-link" size={80} />
          </label>
        </section>
      )}
      <section aria-labelledby="h-mint">
        <h2 id="h-mint">A link for a new operator</h2>
        <form method="post" action="/console/links" class="inline" data-testid="mint-link">
          <Csrf viewer={viewer} />
          <label>
            Subject (who, as the audit names them)
            <input
              name="subject"
              required
              maxlength={128}
              autocomplete="off"
              value={m ? '' : (v.subject ?? '')}
              placeholder="alice@example.com"
            />
          </label>
          <label>
            Role
            <select name="role">
              {ROLES.map((r) => (
                <option value={r} selected={(v.role ?? 'approve') === r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <label>
            Party (optional)
            <select name="party">
              <option value="">every party</option>
              {known.map((p) => (
                <option value={p} selected={v.party === p}>
                  {p}
                </option>
              ))}
            </select>
          </label>
          <label>
            Lifetime
            <select name="ttl">
              {LIFETIMES.map(([label, s]) => (
                <option value={String(s)} selected={(v.ttl ?? '900') === String(s)}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Make the link</button>
          <FormError message={form?.error} />
        </form>
      </section>
    </Page>,
    form?.error ? 400 : 200,
  );
}

export async function mintLinkForm(c: Ctx, deps: ConsoleDeps) {
  const f = await formFields(c);
  const role = ROLES.find((r) => r === f.role);
  const ttl = LIFETIMES.find(([, s]) => String(s) === f.ttl)?.[1];
  const subject = (f.subject ?? '').trim();
  if (!subject) return linksPage(c, { error: 'Subject: who the link is for.', values: f });
  if (!role || !ttl) return linksPage(c, { error: 'Choose a role and a lifetime offered.', values: f });
  const party = f.party?.trim() || undefined;
  const res = await answer(
    c.get('api').wallet.v1.console.links.$post({
      json: { subject, role, ttlSeconds: ttl, ...(party ? { party } : {}) },
    }),
  );
  if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403)
    return linksPage(c, { error: apiMessage(res), values: f });
  const { token, expiresAt } = must(res, 'link');
  const base = (deps.publicUrl ?? new URL(c.req.url).origin).replace(/\/$/, '');
  c.header('Cache-Control', 'no-store');
  return linksPage(c, {
    values: f,
    minted: {
      link: `${base}/console/signin?t=${token}`,
      subject,
      role,
      expiresAt,
      ...(party ? { party } : {}),
    },
  });
}
