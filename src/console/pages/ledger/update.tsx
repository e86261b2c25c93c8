// A transaction by update id or offset (INTERFACE.md 4.3, 4.4), or the update at an offset (4.5), as a party
// sees it.
import type { Ctx } from '../../http.tsx';
import { FormError, Json } from '../../ui.tsx';
import { Ledger, partyField } from './layout.tsx';
import { compact, ledgerAnswer, outcome } from './query.ts';

export async function updatePage(c: Ctx) {
  const q = c.req.query();
  const kind = q.kind === 'update' ? 'update' : 'transaction';
  let result: { ok: unknown } | { error: string } | undefined;
  const ledger = c.get('api').wallet.v1.ledger;
  const query = compact({ party: q.party });
  const updateId = q.updateId?.trim();
  const offset = q.offset?.trim();
  if (updateId) {
    if (kind === 'update')
      result = {
        error:
          'An update by id is not in the interface: look up a transaction by id, or an update by offset.',
      };
    else
      result = outcome(
        await ledgerAnswer(ledger.transactions[':updateId'].$get({ param: { updateId }, query })),
        'transaction',
      );
  } else if (offset) {
    if (!/^\d{1,15}$/.test(offset) || Number(offset) < 1)
      result = { error: 'Offset: a positive whole number.' };
    else if (kind === 'update')
      result = outcome(
        await ledgerAnswer(ledger.updates.offsets[':offset'].$get({ param: { offset }, query })),
        kind,
      );
    else
      result = outcome(
        await ledgerAnswer(ledger.offsets[':offset'].$get({ param: { offset }, query })),
        kind,
      );
  } else if (q.party !== undefined) result = { error: 'Give an update id or an offset.' };
  return c.html(
    <Ledger c={c} title="Transaction or update" active="/console/ledger/update">
      <form method="get" class="inline" data-testid="update-form">
        {partyField(c, q.party)}
        <label>
          Update id
          <input name="updateId" value={q.updateId ?? ''} maxlength={512} />
        </label>
        <label>
          or offset
          <input name="offset" inputmode="numeric" value={q.offset ?? ''} />
        </label>
        <label>
          As
          <select name="kind">
            <option value="transaction">transaction (4.3, 4.4)</option>
            <option value="update" selected={kind === 'update'}>
              update (4.5)
            </option>
          </select>
        </label>
        <button type="submit">Look up</button>
        {result && 'error' in result && <FormError message={result.error} />}
      </form>
      {result && 'ok' in result && (
        <div data-testid="update-result">
          <Json value={result.ok} label="ledger answer" />
        </div>
      )}
    </Ledger>,
    result && 'error' in result ? 400 : 200,
  );
}
