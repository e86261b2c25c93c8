// Ledger: where the queries of the interface's query side start.
import type { Ctx } from '../../http.tsx';
import { Ledger } from './layout.tsx';

export function ledgerIndex(c: Ctx) {
  return c.html(
    <Ledger c={c} title="Ledger" active="">
      <p>Queries go through the wallet's own ledger client, as a party you name (or your own party).</p>
    </Ledger>,
  );
}
