// The console's page frame and small shared pieces (server-rendered; Hono's JSX escapes every value).
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { Principal } from '../auth/index.ts';

/** A navigation link; `section`: the section whose own bar lists it (none: the top bar). */
export interface NavLink {
  href: string;
  label: string;
  section?: string;
  /** A count shown beside the label (what awaits the operator there). */
  count?: number;
}

export interface Viewer {
  principal: Principal;
  csrf: string;
  /** The links to the pages this operator can open (pages/index.ts). */
  nav: readonly NavLink[];
}

export function Page(p: { title: string; viewer?: Viewer; active?: string; children?: Child }) {
  return (
    <>
      {raw('<!DOCTYPE html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${p.title} · Quill console`}</title>
          <link rel="stylesheet" href="/console/assets/console.css" />
          <script src="/console/assets/console.js" defer />
        </head>
        <body>
          <header class="top">
            <a class="brand" href="/console">
              Quill console
            </a>
            {p.viewer && <NavLinks label="Sections" links={sectionLinks(p.viewer)} active={p.active} />}
            {p.viewer && <SearchBox />}
            {p.viewer && (
              <div class="who">
                <span data-testid="who">
                  {p.viewer.principal.subject} · {p.viewer.principal.role}
                  {p.viewer.principal.party ? ` · ${short(p.viewer.principal.party)}` : ''}
                </span>
                <form method="post" action="/console/signout">
                  <Csrf viewer={p.viewer} />
                  <button type="submit" class="link">
                    Sign out
                  </button>
                </form>
              </div>
            )}
          </header>
          <main id="main">
            <h1>{p.title}</h1>
            {p.children}
          </main>
        </body>
      </html>
    </>
  );
}

/** The viewer's links in the bar of `section` (none: the top bar). */
export function sectionLinks(viewer: Viewer, section?: string): NavLink[] {
  return viewer.nav.filter((l) => l.section === section);
}

export const Csrf = (p: { viewer: Viewer }) => <input type="hidden" name="_csrf" value={p.viewer.csrf} />;

/** A form's refusal, shown beside it. */
export const FormError = (p: { message?: string | undefined }) =>
  p.message ? (
    <p class="error" role="alert" data-testid="form-error">
      {p.message}
    </p>
  ) : null;

export const Notice = (p: { children?: Child }) => <p class="notice">{p.children}</p>;

export const Status = (p: { status: string }) => (
  <span class={`status s-${p.status}`} data-status={p.status}>
    {p.status}
  </span>
);

/** Long ids shortened for tables (the full value in the title and on the detail page). */
export function short(id: string, keep = 18): string {
  return id.length > keep * 2 ? `${id.slice(0, keep)}…${id.slice(-8)}` : id;
}

export const Id = (p: { value: string; href?: string }) =>
  p.href ? (
    <a href={p.href} title={p.value} class="mono">
      {short(p.value)}
    </a>
  ) : (
    <span title={p.value} class="mono">
      {short(p.value)}
    </span>
  );

/**
 * A template (or interface) id as operators know it, `package-name:Module:Entity`, with the whole id (its 64-hex
 * package id) on hover; without a package name, the id shortened.
 */
export function Template(p: { templateId?: string | null | undefined; packageName?: string | undefined }) {
  const t = p.templateId ?? '';
  const at = t.indexOf(':');
  return (
    <span class="mono" title={t}>
      {p.packageName && at > 0 ? `${p.packageName}${t.slice(at)}` : short(t)}
    </span>
  );
}

export const Time = (p: { at: string | null | undefined }) =>
  p.at ? <time datetime={p.at}>{p.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time> : <span>—</span>;

export const Json = (p: { value: unknown; label?: string }) => (
  <section class="json-box" aria-label={p.label ?? 'JSON'}>
    <pre class="json" tabindex={0}>
      {JSON.stringify(p.value, null, 2)}
    </pre>
  </section>
);

export const Empty = (p: { children?: Child }) => <p class="empty">{p.children}</p>;

/** A definition list of label → value rows. */
export const Facts = (p: { rows: [string, Child][] }) => (
  <dl class="facts">
    {p.rows.map(([k, v]) => (
      <>
        <dt>{k}</dt>
        <dd>{v}</dd>
      </>
    ))}
  </dl>
);

/** Activity feed entries (INTERFACE.md 4.8): event id, type and date. */
export const ActivityTable = (p: {
  activities: readonly { event_id: string; activity_type: string; date: string }[];
}) => (
  <table data-testid="activities">
    <thead>
      <tr>
        <th scope="col">Event id</th>
        <th scope="col">Type</th>
        <th scope="col">Date</th>
      </tr>
    </thead>
    <tbody>
      {p.activities.map((a) => (
        <tr>
          <td class="mono">{a.event_id}</td>
          <td>{a.activity_type}</td>
          <td>{a.date}</td>
        </tr>
      ))}
    </tbody>
  </table>
);

/** A navigation list; the current page's link is marked `aria-current`. */
export const NavLinks = (p: {
  label: string;
  links: readonly NavLink[];
  active?: string | undefined;
  class?: string;
}) => (
  <nav aria-label={p.label} class={p.class}>
    <ul>
      {p.links.map((l) => (
        <li>
          <a href={l.href} aria-current={p.active === l.href ? 'page' : undefined}>
            {l.label}
            {l.count ? (
              <span class="badge" data-testid={`badge-${l.label.toLowerCase()}`}>
                {' '}
                {l.count}
                <span class="visually-hidden"> waiting</span>
              </span>
            ) : null}
          </a>
        </li>
      ))}
    </ul>
  </nav>
);

/** The header's search box: any id, answered by /console/search. */
export const SearchBox = (p: { value?: string; label?: string }) => (
  <search aria-label={p.label ?? 'Find an id'} class="search">
    <form
      method="get"
      action="/console/search"
      class="search"
      data-testid={p.label ? 'search-again' : 'search-form'}
    >
      <label>
        <span class="visually-hidden">Find an id</span>
        <input
          name="q"
          type="search"
          value={p.value ?? ''}
          maxlength={600}
          placeholder="submission, command, update, party, key, contract, hash"
        />
      </label>
      <button type="submit">Find</button>
    </form>
  </search>
);
