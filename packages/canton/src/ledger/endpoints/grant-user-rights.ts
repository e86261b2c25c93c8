/** `POST /v2/users/{user-id}/rights`: Grants rights to a user; answers the rights that were new. */
import { endpoint } from '../endpoint.ts';
import { checkUserRightsRequest } from '../rules.ts';
import { GrantUserRightsRequest, GrantUserRightsResponse } from '../schemas/index.ts';

export const grantUserRights = endpoint({
  method: 'POST',
  path: '/v2/users/{user-id}/rights',
  body: GrantUserRightsRequest,
  response: GrantUserRightsResponse,
  rule: (body, params) => checkUserRightsRequest(params['user-id'], body),
  errors: ['INVALID_ARGUMENT', 'USER_NOT_FOUND'],
});
