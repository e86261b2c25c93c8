/** `GET /v2/users`: The users, one page at a time. */
import { endpoint } from '../endpoint.ts';
import { ListUsersQuery, ListUsersResponse } from '../schemas/index.ts';

export const listUsers = endpoint({
  method: 'GET',
  path: '/v2/users',
  query: ListUsersQuery,
  response: ListUsersResponse,
});
