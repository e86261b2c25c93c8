/** `GET /v2/updates/transaction-tree-by-id/{update-id}?parties=…`: one transaction in the deprecated tree form. */
import { endpoint } from '../endpoint.ts';
import { checkTreeLookup } from '../rules.ts';
import { JsGetTransactionTreeResponse, TreeLookupQuery } from '../schemas/index.ts';

export const transactionTreeById = endpoint({
  method: 'GET',
  path: '/v2/updates/transaction-tree-by-id/{update-id}',
  query: TreeLookupQuery,
  response: JsGetTransactionTreeResponse,
  rule: (_body, params, query) => checkTreeLookup({ updateId: params['update-id'] }, query.parties),
  errors: ['INVALID_ARGUMENT', 'MISSING_FIELD', 'UPDATE_NOT_FOUND'],
});
