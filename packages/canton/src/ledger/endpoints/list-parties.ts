/** `GET /v2/parties`: The parties known to the participant, one page at a time. */
import { endpoint } from '../endpoint.ts';
import { ListKnownPartiesQuery, ListKnownPartiesResponse } from '../schemas/index.ts';

export const listParties = endpoint({
  method: 'GET',
  path: '/v2/parties',
  query: ListKnownPartiesQuery,
  response: ListKnownPartiesResponse,
  errors: ['INVALID_ARGUMENT'],
});
