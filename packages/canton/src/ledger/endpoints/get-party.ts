/** `GET /v2/parties/{party}`: The details of one party (an empty list when unknown). */
import { endpoint } from '../endpoint.ts';
import { GetPartiesResponse } from '../schemas/index.ts';

export const getParty = endpoint({
  method: 'GET',
  path: '/v2/parties/{party}',
  response: GetPartiesResponse,
  errors: ['INVALID_ARGUMENT'],
});
