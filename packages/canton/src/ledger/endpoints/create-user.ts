/** `POST /v2/users`: Creates a user with rights. */
import { endpoint } from '../endpoint.ts';
import { checkCreateUserRequest } from '../rules.ts';
import { CreateUserRequest, CreateUserResponse } from '../schemas/index.ts';

export const createUser = endpoint({
  method: 'POST',
  path: '/v2/users',
  body: CreateUserRequest,
  response: CreateUserResponse,
  rule: checkCreateUserRequest,
  errors: ['INVALID_ARGUMENT', 'INVALID_FIELD', 'USER_ALREADY_EXISTS'],
});
