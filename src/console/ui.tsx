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
            {p.viewer && (
              // Open by default (without console.js everything shows, wrapped); console.js closes it on a narrow
              // screen, where the summary is the menu button. On a wide one the summary is hidden.
              <details class="menu" open>
                <summary>Menu</summary>
                <div class="menu-body">
                  <NavLinks label="Sections" links={sectionLinks(p.viewer)} active={p.active} live="nav" />
                  <SearchBox />
                  <div class="who">
                    <span data-testid="who">
                      {p.viewer.principal.subject} · {p.viewer.principal.role}
                      {p.viewer.principal.party ? ` · ${shortId(p.viewer.principal.party)}` : ''}
                    </span>
                    <form method="post" action="/console/signout">
                      <Csrf viewer={p.viewer} />
                      <button type="submit" class="link">
                        Sign out
                      </button>
                    </form>
                  </div>
                </div>
              </details>
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

/**
 * An id with its middle left out: a party keeps its hint (up to 20 characters) and the ends of its fingerprint
 * (`treasury::1220bf…c60df`); anything else longer than 20 characters keeps its first 10 and last 6.
 */
export function shortId(id: string): string {
  const sep = id.indexOf('::');
  if (sep > 0) {
    const hint = id.slice(0, sep);
    const rest = id.slice(sep + 2);
    const h = hint.length > 20 ? `${hint.slice(0, 19)}…` : hint;
    return `${h}::${rest.length > 14 ? `${rest.slice(0, 6)}…${rest.slice(-5)}` : rest}`;
  }
  return id.length > 20 ? `${id.slice(0, 10)}…${id.slice(-6)}` : id;
}

/** A party's console page. */
export const partyHref = (party: string) => `/console/parties/${encodeURIComponent(party)}`;

/**
 * An id, the one convention (issue 30 item 7): shortened in the middle with the whole value on hover, a link where
 * it has a page, and a copy button (console.js shows it and copies; without the script it stays hidden). `full`:
 * the whole value, wrapped (a detail page's own id).
 */
export const Id = (p: { value: string; href?: string | undefined; full?: boolean; testid?: string }) => {
  const text = p.full ? p.value : shortId(p.value);
  const cls = p.full ? 'mono wrap' : 'mono';
  return (
    <span class="id">
      {p.href ? (
        <a href={p.href} title={p.value} class={cls} data-testid={p.testid}>
          {text}
        </a>
      ) : (
        <span title={p.value} class={cls} data-testid={p.testid}>
          {text}
        </span>
      )}
      <button type="button" class="copy" data-copy={p.value} title="Copy the whole value" hidden>
        copy
      </button>
    </span>
  );
};

/** A party id, linked to its page. */
export const Party = (p: { value: string; full?: boolean; link?: boolean }) => (
  <Id value={p.value} href={p.link === false ? undefined : partyHref(p.value)} full={p.full ?? false} />
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

/** `2026-05-01 12:34:56 UTC`. */
export function utc(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)} UTC`;
}

/** "just now" (under a minute), "3 min ago", "5 h ago", "2 d ago", "in 3 h 5 min"; past 60 days, the UTC date. */
export function relative(iso: string, now = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const ms = now - at;
  const future = ms < 0;
  const s = Math.floor(Math.abs(ms) / 1000);
  // Under a minute is "just now": a live table's text changes once a minute, not on every refresh.
  if (s < 60) return 'just now';
  const min = Math.floor(s / 60);
  const h = Math.floor(min / 60);
  const d = Math.floor(h / 24);
  if (d > 60) return utc(iso).slice(0, 10);
  const span =
    d > 0
      ? `${d} d${d < 3 && h % 24 ? ` ${h % 24} h` : ''}`
      : h > 0
        ? `${h} h${h < 6 && min % 60 ? ` ${min % 60} min` : ''}`
        : `${min} min`;
  return future ? `in ${span}` : `${span} ago`;
}

/** A time, the one convention: relative ("3 min ago"), the UTC value on hover. */
export const Time = (p: { at: string | null | undefined; now?: number }) =>
  p.at ? (
    <time datetime={p.at} title={utc(p.at)}>
      {relative(p.at, p.now)}
    </time>
  ) : (
    <span>—</span>
  );

/** An amount exactly as the ledger carries it, with its instrument; none: a dash (never "0"). */
export const Amount = (p: {
  value: string | null | undefined;
  instrument?: string | undefined;
  testid?: string;
}) =>
  p.value ? (
    <span class="amount" data-testid={p.testid}>
      {p.instrument ? `${p.value} ${p.instrument}` : p.value}
    </span>
  ) : (
    <span class="amount" data-testid={p.testid}>
      —
    </span>
  );

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
          <td class="mono wrap">{a.event_id}</td>
          <td>{a.activity_type}</td>
          <td>
            <Time at={a.date} />
          </td>
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
  /** console.js swaps it when events arrive (the approvals badge). */
  live?: string;
}) => (
  <nav aria-label={p.label} class={p.class} data-live-region={p.live}>
    <ul>
      {p.links.map((l) => (
        <li>
          <a href={l.href} aria-current={p.active === l.href ? 'page' : undefined}>
            {l.label}
            {l.count !== undefined && (
              // Kept at 0 (not shown, not read out) so the bar keeps its width when the count comes and goes.
              <span
                class={l.count ? 'badge' : 'badge zero'}
                aria-hidden={l.count ? undefined : 'true'}
                data-testid={`badge-${l.label.toLowerCase()}`}
              >
                {' '}
                {l.count}
                <span class="visually-hidden"> waiting</span>
              </span>
            )}
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
