/** `GET /v2/state/ledger-end`: The current ledger end offset (absent on an empty ledger). */
import { endpoint } from '../endpoint.ts';
import { GetLedgerEndResponse } from '../schemas/index.ts';

export const ledgerEnd = endpoint({
  method: 'GET',
  path: '/v2/state/ledger-end',
  response: GetLedgerEndResponse,
});
