// The activity feed (INTERFACE.md 4.8) of a party, paged by begin_after_id.
import type { InferResponseType } from 'hono/client';
import type { Api } from '../../client.ts';
import type { Ctx } from '../../http.tsx';
import { ActivityTable, Empty, FormError } from '../../ui.tsx';
import { Ledger, partyField } from './layout.tsx';
import { compact, ledgerAnswer, outcome, qs } from './query.ts';

type ActivityPage = InferResponseType<Api['wallet']['v1']['parties'][':party']['activities']['$get'], 200>;

export async function activitiesPage(c: Ctx) {
  const q = c.req.query();
  const party = q.party?.trim() || c.get('principal').party;
  let result: { ok: ActivityPage } | { error: string } | undefined;
  if (q.party !== undefined || q.begin_after_id !== undefined) {
    if (!party) result = { error: 'Party: required.' };
    else if (q.page_size && !/^\d{1,4}$/.test(q.page_size))
      result = { error: 'Page size: a number from 1 to 1000.' };
    else {
      const query = { ...compact({ begin_after_id: q.begin_after_id }), page_size: q.page_size || '50' };
      const feed = c.get('api').wallet.v1.parties[':party'].activities;
      result = outcome(await ledgerAnswer(feed.$get({ param: { party }, query })), 'activity feed');
    }
  }
  const next = result && 'ok' in result ? result.ok.next_begin_after_id : null;
  return c.html(
    <Ledger c={c} title="Activity feed" active="/console/ledger/activities">
      <form method="get" class="inline" data-testid="activities-form">
        {partyField(c, q.party)}
        <label>
          After event id
          <input name="begin_after_id" value={q.begin_after_id ?? ''} maxlength={1024} />
        </label>
        <label>
          Page size
          <input name="page_size" inputmode="numeric" value={q.page_size ?? '50'} />
        </label>
        <button type="submit">Read</button>
        {result && 'error' in result && <FormError message={result.error} />}
      </form>
      {result && 'ok' in result && (
        <div data-testid="activities-result">
          {result.ok.activities.length === 0 ? (
            <Empty>No activity of this party on this page of the feed.</Empty>
          ) : (
            <ActivityTable activities={result.ok.activities} />
          )}
          {next ? (
            <p>
              <a
                data-testid="next-activities"
                href={`/console/ledger/activities?${qs({ party, begin_after_id: next, page_size: q.page_size || '50' })}`}
              >
                Next page (after {next})
              </a>
            </p>
          ) : (
            <p>End of the feed.</p>
          )}
        </div>
      )}
    </Ledger>,
    result && 'error' in result ? 400 : 200,
  );
}
