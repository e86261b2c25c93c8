// Updates between two offsets, in either order, as a party sees them (INTERFACE.md 4.2).
import type { Ctx } from '../../http.tsx';
import { FormError } from '../../ui.tsx';
import { Ledger, partyField } from './layout.tsx';
import { compact, ledgerAnswer, outcome, qs } from './query.ts';
import { type LedgerUpdate, UpdateList } from './update-list.tsx';

/** Updates to a page (issue 30 item 10). */
const PAGE = 50;

/** The offset of an update, whatever its kind. */
function offsetOf(u: LedgerUpdate): number {
  const v = Object.values(u)[0] as { value: { offset: number } };
  return v.value.offset;
}

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
        // One more than a page: whether there is a next one.
        limit: String(PAGE + 1),
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
      {result && 'ok' in result && (
        <>
          <UpdateList updates={result.ok.updates.slice(0, PAGE)} party={q.party ?? ''} />
          <Pager q={q} updates={result.ok.updates} />
        </>
      )}
    </Ledger>,
    result && 'error' in result ? 400 : 200,
  );
}

/**
 * The next page continues past the last offset shown, in the same order; `start` keeps the range's first bound as
 * asked, for the first-page link.
 */
function Pager(p: { q: Record<string, string>; updates: LedgerUpdate[] }) {
  const last = p.updates[PAGE - 1];
  const bound = p.q.order === 'desc' ? 'endInclusive' : 'beginExclusive';
  const start = p.q.start ?? p.q[bound];
  const next =
    p.updates.length > PAGE && last
      ? { ...p.q, start, [bound]: String(p.q.order === 'desc' ? offsetOf(last) - 1 : offsetOf(last)) }
      : undefined;
  return (
    <nav class="pager" aria-label="Pages of updates">
      {p.q.start !== undefined && (
        <a
          href={`/console/ledger/updates?${qs({ ...p.q, [bound]: p.q.start, start: undefined })}`}
          data-testid="first"
        >
          First page
        </a>
      )}
      {next && (
        <a href={`/console/ledger/updates?${qs(next)}`} data-testid="next-updates" rel="next">
          Next {PAGE}
        </a>
      )}
    </nav>
  );
}
