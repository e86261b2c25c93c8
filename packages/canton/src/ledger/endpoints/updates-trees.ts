/**
 * `POST /v2/updates/trees`: updates in the deprecated tree form (transaction trees and reassignments), from the
 * legacy `filter` only (INTERFACE.md 4.2; upstream removed it after 3.4, the 3.5 spec still lists it).
 */
import { endpoint } from '../endpoint.ts';
import { checkGetUpdateTreesRequest } from '../rules.ts';
import { GetUpdatesRequest, JsGetUpdateTreesResponseList, StreamQuery } from '../schemas/index.ts';
import { updates } from './updates.ts';

export const updatesTrees = endpoint({
  method: 'POST',
  path: '/v2/updates/trees',
  body: GetUpdatesRequest,
  query: StreamQuery,
  response: JsGetUpdateTreesResponseList,
  rule: checkGetUpdateTreesRequest,
  errors: updates.errors,
});
