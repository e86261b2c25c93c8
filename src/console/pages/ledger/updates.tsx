// Updates between two offsets, in either order, as a party sees them (INTERFACE.md 4.2).
import type { Ctx } from '../../http.tsx';
import { FormError } from '../../ui.tsx';
import { Ledger, partyField } from './layout.tsx';
import { compact, ledgerAnswer, outcome } from './query.ts';
import { type LedgerUpdate, UpdateList } from './update-list.tsx';

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
      result = outcome(await ledgerAnswer(c.get('api').wallet.v1.ledger.updates.$get({ query })), 'updates');
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
