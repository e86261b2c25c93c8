// The ledger section's frame: its own navigation of queries, and the party field every query form has.
import type { Child } from 'hono/jsx';
import type { Ctx } from '../../http.tsx';
import { NavLinks, Page } from '../../ui.tsx';

const SECTIONS = [
  ['/console/ledger/packages', 'Vetted packages (4.1)'],
  ['/console/ledger/updates', 'Updates between offsets (4.2)'],
  ['/console/ledger/update', 'Transaction or update by id or offset (4.3–4.5)'],
  ['/console/ledger/user', 'Ledger user (4.6)'],
  ['/console/ledger/activities', 'Activity feed (4.8)'],
] as const;

export function Ledger(p: { c: Ctx; title: string; active: string; children?: Child; status?: number }) {
  return (
    <Page title={p.title} viewer={p.c.get('viewer')} active="/console/ledger">
      <NavLinks label="Ledger queries" class="subnav" links={SECTIONS} active={p.active} />
      {p.children}
    </Page>
  );
}

/** The party a read is made as: the operator's own, or the one named. */
export function partyField(c: Ctx, value: string | undefined) {
  const own = c.get('principal').party;
  return (
    <label>
      Party
      <input name="party" value={value ?? own ?? ''} maxlength={255} readonly={own !== undefined} />
    </label>
  );
}
