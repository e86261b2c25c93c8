/** `GET /v2/authenticated-user`: The token's own user. */
import { endpoint } from '../endpoint.ts';
import { GetUserResponse } from '../schemas/index.ts';

export const authenticatedUser = endpoint({
  method: 'GET',
  path: '/v2/authenticated-user',
  response: GetUserResponse,
  errors: ['INVALID_ARGUMENT', 'USER_NOT_FOUND'],
});
