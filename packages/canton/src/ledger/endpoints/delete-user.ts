/** `DELETE /v2/users/{user-id}`: Deletes a user. */
import { endpoint } from '../endpoint.ts';
import { DeleteUserResponse } from '../schemas/index.ts';

export const deleteUser = endpoint({
  method: 'DELETE',
  path: '/v2/users/{user-id}',
  response: DeleteUserResponse,
  errors: ['USER_NOT_FOUND'],
});
