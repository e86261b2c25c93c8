/** `PATCH /v2/users/{user-id}/rights`: Revokes rights of a user; answers the rights that were held. */
import { endpoint } from '../endpoint.ts';
import { checkUserRightsRequest } from '../rules.ts';
import { RevokeUserRightsRequest, RevokeUserRightsResponse } from '../schemas/index.ts';

export const revokeUserRights = endpoint({
  method: 'PATCH',
  path: '/v2/users/{user-id}/rights',
  body: RevokeUserRightsRequest,
  response: RevokeUserRightsResponse,
  rule: (body, params) => checkUserRightsRequest(params['user-id'], body),
  errors: ['INVALID_ARGUMENT', 'USER_NOT_FOUND'],
});
