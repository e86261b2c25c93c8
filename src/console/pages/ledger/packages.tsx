// Vetted packages (INTERFACE.md 4.1): package and topology filters, page tokens.
import type { InferResponseType } from 'hono/client';
import type { Api } from '../../client.ts';
import type { Ctx } from '../../http.tsx';
import { FormError, Json } from '../../ui.tsx';
import { Ledger } from './layout.tsx';
import { compact, ledgerAnswer, outcome, qs } from './query.ts';

type VettedPage = InferResponseType<Api['wallet']['v1']['ledger']['vetted-packages']['$get'], 200>;

export async function packagesPage(c: Ctx) {
  const q = c.req.query();
  const asked = Object.keys(q).length > 0;
  let result: { ok: VettedPage } | { error: string } | undefined;
  if (asked) {
    if (q.pageSize && !/^\d{1,4}$/.test(q.pageSize))
      result = { error: 'Page size: a number from 1 to 1000.' };
    else {
      const query = compact({
        packageIds: q.packageIds,
        packageNamePrefixes: q.packageNamePrefixes,
        participantIds: q.participantIds,
        synchronizerIds: q.synchronizerIds,
        pageSize: q.pageSize,
        pageToken: q.pageToken,
      });
      result = outcome(
        await ledgerAnswer(c.get('api').wallet.v1.ledger['vetted-packages'].$get({ query })),
        'vetted packages',
      );
    }
  }
  const next = result && 'ok' in result ? result.ok.nextPageToken : undefined;
  return c.html(
    <Ledger c={c} title="Vetted packages" active="/console/ledger/packages">
      <form method="get" class="inline" data-testid="packages-form">
        <label>
          Package ids (comma-separated)
          <input name="packageIds" value={q.packageIds ?? ''} />
        </label>
        <label>
          Package name prefixes
          <input name="packageNamePrefixes" value={q.packageNamePrefixes ?? ''} />
        </label>
        <label>
          Participant ids
          <input name="participantIds" value={q.participantIds ?? ''} />
        </label>
        <label>
          Synchronizer ids
          <input name="synchronizerIds" value={q.synchronizerIds ?? ''} />
        </label>
        <label>
          Page size
          <input name="pageSize" inputmode="numeric" value={q.pageSize ?? ''} />
        </label>
        <button type="submit">Query</button>
        {result && 'error' in result && <FormError message={result.error} />}
      </form>
      {result && 'ok' in result && (
        <div data-testid="packages-result">
          <p>{(result.ok.vettedPackages ?? []).length} entries on this page.</p>
          <Json value={result.ok.vettedPackages ?? []} label="vetted packages" />
          {next ? (
            <p>
              <a data-testid="next-page" href={`/console/ledger/packages?${qs({ ...q, pageToken: next })}`}>
                Next page
              </a>
            </p>
          ) : (
            <p>Last page.</p>
          )}
        </div>
      )}
    </Ledger>,
    result && 'error' in result ? 400 : 200,
  );
}
