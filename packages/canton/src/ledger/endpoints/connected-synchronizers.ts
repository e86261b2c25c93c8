/** `GET /v2/state/connected-synchronizers`: The synchronizers the participant (or a party on it) is connected to. */
import { endpoint } from '../endpoint.ts';
import { ConnectedSynchronizersQuery, GetConnectedSynchronizersResponse } from '../schemas/index.ts';

export const connectedSynchronizers = endpoint({
  method: 'GET',
  path: '/v2/state/connected-synchronizers',
  query: ConnectedSynchronizersQuery,
  response: GetConnectedSynchronizersResponse,
  errors: ['INVALID_ARGUMENT'],
});
