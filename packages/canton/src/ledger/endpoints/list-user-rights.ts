/** `GET /v2/users/{user-id}/rights`: A user's rights. */
import { endpoint } from '../endpoint.ts';
import { ListUserRightsResponse } from '../schemas/index.ts';

export const listUserRights = endpoint({
  method: 'GET',
  path: '/v2/users/{user-id}/rights',
  response: ListUserRightsResponse,
  errors: ['USER_NOT_FOUND'],
});
