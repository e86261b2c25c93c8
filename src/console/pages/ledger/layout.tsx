// The ledger section's frame: its own bar of queries (the operator's, from pages/index.ts), and the party field
// every query form has.
import type { Child } from 'hono/jsx';
import type { Ctx } from '../../http.tsx';
import { NavLinks, Page, sectionLinks } from '../../ui.tsx';

export function Ledger(p: { c: Ctx; title: string; active: string; children?: Child; status?: number }) {
  const viewer = p.c.get('viewer');
  return (
    <Page title={p.title} viewer={viewer} active="/console/ledger">
      <NavLinks
        label="Ledger queries"
        class="subnav"
        links={sectionLinks(viewer, '/console/ledger')}
        active={p.active}
      />
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
