// Find anything from one box (the header's): a submission id, command id, update id, party, key fingerprint,
// contract id or prepared-transaction hash. One match opens its page; several are listed; none says so beside the
// form. The API's search answers within the operator's role and party scope.
import { answer } from '../client.ts';
import type { Ctx } from '../http.tsx';
import { apiMessage, must } from '../http.tsx';
import { Empty, FormError, Id, Page, SearchBox } from '../ui.tsx';

interface Match {
  kind: string;
  id: string;
  submission?: string | undefined;
  party?: string | undefined;
  updateId?: string | undefined;
}

const WHAT: Record<string, string> = {
  submission: 'a submission id',
  command: 'the command id of a submission',
  update: 'the update id of a submission',
  transaction: "the update id of a transaction of the wallet's parties",
  party: 'a party',
  key: 'a key fingerprint',
  contract: 'the contract id of an active holding',
  hash: 'the hash of a signed transaction',
};

/** The page that shows a match. */
export function matchHref(m: Match): string {
  const e = encodeURIComponent;
  if (m.kind === 'key') return `/console/keys/${e(m.id)}`;
  if (m.kind === 'party' || m.kind === 'contract') return `/console/parties/${e(m.party ?? m.id)}`;
  if (m.submission) return `/console/submissions/${e(m.submission)}`;
  return `/console/ledger/update?party=${e(m.party ?? '')}&updateId=${e(m.updateId ?? m.id)}`;
}

export async function searchPage(c: Ctx) {
  const q = (c.req.query('q') ?? '').trim();
  let matches: Match[] = [];
  let error: string | undefined;
  if (q.length > 600) error = 'That is longer than any id (600 characters at most).';
  else if (q) {
    const res = await answer(c.get('api').wallet.v1.search.$get({ query: { q } }));
    if (res.status === 400) error = apiMessage(res);
    else matches = must(res, 'search').matches;
  }
  const targets = [...new Set(matches.map(matchHref))];
  if (targets.length === 1 && targets[0]) return c.redirect(targets[0], 303);
  return c.html(
    <Page title="Search" viewer={c.get('viewer')}>
      <SearchBox value={q} label="Search again" />
      <FormError message={error} />
      {!q && !error && (
        <Empty>
          Paste a submission id, command id, update id, party, key fingerprint, contract id or transaction
          hash.
        </Empty>
      )}
      {q && !error && matches.length === 0 && (
        <p class="error" role="alert" data-testid="search-none">
          Nothing matches “{q.length > 80 ? `${q.slice(0, 80)}…` : q}”: no submission, command, update, party,
          key, holding or signed hash{c.get('principal').party ? ' of your party' : ''} has it.
        </p>
      )}
      {matches.length > 0 && (
        <ul data-testid="search-matches">
          {matches.map((m) => (
            <li data-kind={m.kind}>
              <Id value={m.id} href={matchHref(m)} /> is {WHAT[m.kind] ?? m.kind}
              {m.party ? (
                <>
                  {' of '}
                  <Id value={m.party} />
                </>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </Page>,
  );
}
