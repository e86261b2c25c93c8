/** `PATCH /v2/users/{user-id}`: Updates the fields of a user named by `updateMask.paths` (proto snake_case). */
import { endpoint } from '../endpoint.ts';
import { checkUpdateUserRequest } from '../rules.ts';
import { UpdateUserRequest, UpdateUserResponse } from '../schemas/index.ts';

export const updateUser = endpoint({
  method: 'PATCH',
  path: '/v2/users/{user-id}',
  body: UpdateUserRequest,
  response: UpdateUserResponse,
  rule: (body, params) => checkUpdateUserRequest(params['user-id'], body),
  errors: [
    'INVALID_ARGUMENT',
    'INVALID_FIELD',
    'MISSING_FIELD',
    'INVALID_USER_UPDATE_REQUEST',
    'CONCURRENT_USER_UPDATE_DETECTED',
    'USER_NOT_FOUND',
  ],
});
