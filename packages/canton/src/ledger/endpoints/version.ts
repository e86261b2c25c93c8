/** `GET /v2/version`: The Ledger API version and features. */
import { endpoint } from '../endpoint.ts';
import { GetLedgerApiVersionResponse } from '../schemas/index.ts';

export const version = endpoint({
  method: 'GET',
  path: '/v2/version',
  response: GetLedgerApiVersionResponse,
});
