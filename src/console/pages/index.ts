// The console's pages, in one table. The router (../index.tsx) routes only what is here, the navigation lists
// the pages the operator can open, and the security tests (CSP and headers, roles, titles) and the
// accessibility scan run over every entry: a page added here is covered without editing them.
import { allows, type Principal, type Role } from '../../auth/index.ts';
import type { ConsoleDeps } from '../deps.ts';
import type { Ctx } from '../http.tsx';
import type { NavLink } from '../ui.tsx';
import { approvalsPage, decide } from './approvals.tsx';
import { auditPage } from './audit.tsx';
import { adoptKey, disableKey, generateKey, keyPage, keysPage } from './keys.tsx';
import { activitiesPage } from './ledger/activities.tsx';
import { ledgerIndex } from './ledger/home.tsx';
import { packagesPage } from './ledger/packages.tsx';
import { updatePage } from './ledger/update.tsx';
import { updatesPage } from './ledger/updates.tsx';
import { updateUser, userPage } from './ledger/user.tsx';
import { linksPage, mintLinkForm } from './links.tsx';
import { overviewPage } from './overview.tsx';
import { onboardParty, partiesPage, partyPage } from './parties.tsx';
import { decideProposal, policyPage, proposePolicy } from './policy.tsx';
import { searchPage } from './search.tsx';
import { postSignatureForm, signPage } from './sign.tsx';
import { submissionRows, submissionsPage } from './submission-list.tsx';
import { expireSubmission, searchSubmission, submissionPage } from './submissions.tsx';

type Handler = (c: Ctx, deps: ConsoleDeps) => Response | Promise<Response>;

export interface ConsolePage {
  /** Under /console, with Hono's `:name` parameters; '' is the overview. */
  path: string;
  /** What the page's <title> starts with. */
  title: string;
  /** Its link in the top bar, or in the bar of the section at `section` (a path here); none: linked from pages. */
  nav?: { label: string; section?: string };
  /**
   * The least role that opens it. The page reads through the API as the operator, so the API enforces it; the
   * security test holds this entry to what the API answers.
   */
  minRole: Role;
  /** Only an operator without party scope opens it. */
  unscoped?: true;
  /** Part of a page that console.js fetches (rows, a status), not a page: no title, no navigation. */
  fragment?: true;
  get?: Handler;
  /** A form's action on this path (it needs the CSRF token). */
  post?: Handler;
}

const param = (c: Ctx, name: string) => c.req.param(name) ?? '';

// In navigation order; a static path before a parameter at the same place (/submissions/rows, /submissions/:id).
export const PAGES: readonly ConsolePage[] = [
  { path: '', title: 'Overview', nav: { label: 'Overview' }, minRole: 'read', get: overviewPage },
  {
    path: '/submissions',
    title: 'Submissions',
    nav: { label: 'Submissions' },
    minRole: 'read',
    get: submissionsPage,
  },
  {
    path: '/submissions/rows',
    title: 'Submission rows',
    minRole: 'read',
    fragment: true,
    get: submissionRows,
  },
  {
    path: '/submissions/:id',
    title: 'Submission',
    minRole: 'read',
    get: (c) => submissionPage(c, param(c, 'id')),
  },
  {
    path: '/submissions/:id/search',
    title: 'Search the ledger',
    minRole: 'admin',
    post: (c) => searchSubmission(c, param(c, 'id')),
  },
  {
    path: '/submissions/:id/expire',
    title: 'Mark expired',
    minRole: 'admin',
    post: (c) => expireSubmission(c, param(c, 'id')),
  },

  {
    path: '/submissions/:id/sign',
    title: 'Sign a submission',
    minRole: 'read',
    get: (c) => signPage(c, param(c, 'id')),
  },
  {
    path: '/submissions/:id/signatures',
    title: 'Post a signature',
    minRole: 'approve',
    post: (c) => postSignatureForm(c, param(c, 'id')),
  },

  {
    path: '/approvals',
    title: 'Approvals',
    nav: { label: 'Approvals' },
    minRole: 'read',
    get: (c, deps) => approvalsPage(c, deps),
  },
  {
    path: '/approvals/:id',
    title: 'Approval decision',
    minRole: 'approve',
    post: (c, deps) => decide(c, deps, param(c, 'id')),
  },
  {
    path: '/keys',
    title: 'Keys',
    nav: { label: 'Keys' },
    minRole: 'admin',
    get: (c) => keysPage(c),
    post: generateKey,
  },
  { path: '/keys/adopt', title: 'Adopt a key', minRole: 'admin', unscoped: true, post: adoptKey },
  { path: '/keys/:fp', title: 'Key', minRole: 'admin', get: (c, deps) => keyPage(c, deps, param(c, 'fp')) },
  {
    path: '/keys/:fp/disable',
    title: 'Disable a key',
    minRole: 'admin',
    post: (c, deps) => disableKey(c, deps, param(c, 'fp')),
  },
  {
    path: '/parties',
    title: 'Parties',
    nav: { label: 'Parties' },
    minRole: 'admin',
    get: (c) => partiesPage(c),
    post: onboardParty,
  },
  { path: '/parties/:party', title: 'Party', minRole: 'read', get: (c) => partyPage(c, param(c, 'party')) },
  {
    path: '/policy',
    title: 'Policy',
    nav: { label: 'Policy' },
    minRole: 'admin',
    get: (c, deps) => policyPage(c, deps),
    post: proposePolicy,
  },
  {
    path: '/policy/proposals/:id',
    title: 'Policy decision',
    minRole: 'admin',
    unscoped: true,
    post: (c, deps) => decideProposal(c, deps, param(c, 'id')),
  },
  { path: '/ledger', title: 'Ledger', nav: { label: 'Ledger' }, minRole: 'read', get: ledgerIndex },
  {
    path: '/ledger/packages',
    title: 'Vetted packages',
    nav: { label: 'Vetted packages (4.1)', section: '/ledger' },
    minRole: 'read',
    get: packagesPage,
  },
  {
    path: '/ledger/updates',
    title: 'Updates between offsets',
    nav: { label: 'Updates between offsets (4.2)', section: '/ledger' },
    minRole: 'read',
    get: updatesPage,
  },
  {
    path: '/ledger/update',
    title: 'Transaction or update',
    nav: { label: 'Transaction or update by id or offset (4.3–4.5)', section: '/ledger' },
    minRole: 'read',
    get: updatePage,
  },
  {
    path: '/ledger/user',
    title: 'Ledger user',
    nav: { label: 'Ledger user (4.6)', section: '/ledger' },
    minRole: 'admin',
    unscoped: true,
    get: (c) => userPage(c),
    post: updateUser,
  },
  {
    path: '/ledger/activities',
    title: 'Activity feed',
    nav: { label: 'Activity feed (4.8)', section: '/ledger' },
    minRole: 'read',
    get: activitiesPage,
  },
  { path: '/audit', title: 'Audit', nav: { label: 'Audit' }, minRole: 'admin', get: auditPage },
  {
    path: '/links',
    title: 'Sign-in links',
    nav: { label: 'Sign-in links' },
    minRole: 'admin',
    unscoped: true,
    get: (c) => linksPage(c),
    post: mintLinkForm,
  },
  { path: '/search', title: 'Search', minRole: 'read', get: searchPage },
];

/** Whether the operator can open the page (its role, and its party scope). */
export function opens(who: Principal, page: ConsolePage): boolean {
  return allows(who.role, page.minRole) && (page.unscoped !== true || who.party === undefined);
}

/**
 * The navigation an operator sees: only the pages it can open, with what waits on each (`counts` by page path,
 * e.g. the submissions awaiting approval on '/approvals').
 */
export function navFor(who: Principal, counts: Record<string, number> = {}): NavLink[] {
  const links: NavLink[] = [];
  for (const page of PAGES) {
    if (!page.nav || !opens(who, page)) continue;
    const { label, section } = page.nav;
    const count = counts[page.path];
    links.push({
      href: `/console${page.path}`,
      label,
      ...(section !== undefined ? { section: `/console${section}` } : {}),
      ...(count !== undefined ? { count } : {}),
    });
  }
  return links;
}
