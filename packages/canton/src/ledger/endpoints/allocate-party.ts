/** `POST /v2/parties`: Allocates a local (participant-hosted) party. */
import { endpoint } from '../endpoint.ts';
import { AllocatePartyRequest, AllocatePartyResponse } from '../schemas/index.ts';

export const allocateParty = endpoint({
  method: 'POST',
  path: '/v2/parties',
  body: AllocatePartyRequest,
  response: AllocatePartyResponse,
  errors: ['INVALID_ARGUMENT', 'INVALID_FIELD'],
});
