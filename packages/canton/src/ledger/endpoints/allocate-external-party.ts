/** `POST /v2/parties/external/allocate`: Allocates an external party from signed topology transactions. */
import { endpoint } from '../endpoint.ts';
import { AllocateExternalPartyRequest, AllocateExternalPartyResponse } from '../schemas/index.ts';

export const allocateExternalParty = endpoint({
  method: 'POST',
  path: '/v2/parties/external/allocate',
  body: AllocateExternalPartyRequest,
  response: AllocateExternalPartyResponse,
  errors: ['INVALID_ARGUMENT', 'INVALID_FIELD', 'EXTERNAL_PARTY_ALREADY_EXISTS'],
});
