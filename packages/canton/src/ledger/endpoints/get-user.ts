/** `GET /v2/users/{user-id}`: One user. */
import { endpoint } from '../endpoint.ts';
import { GetUserResponse } from '../schemas/index.ts';

export const getUser = endpoint({
  method: 'GET',
  path: '/v2/users/{user-id}',
  response: GetUserResponse,
  errors: ['USER_NOT_FOUND'],
});
