/** `GET /v2/updates/transaction-tree-by-offset/{offset}?parties=…`: one transaction in the deprecated tree form. */
import { endpoint } from '../endpoint.ts';
import { checkTreeLookup } from '../rules.ts';
import { JsGetTransactionTreeResponse, TreeLookupQuery } from '../schemas/index.ts';

export const transactionTreeByOffset = endpoint({
  method: 'GET',
  path: '/v2/updates/transaction-tree-by-offset/{offset}',
  query: TreeLookupQuery,
  response: JsGetTransactionTreeResponse,
  rule: (_body, params, query) => checkTreeLookup({ offset: params.offset }, query.parties),
  errors: ['INVALID_ARGUMENT', 'NON_POSITIVE_OFFSET', 'PARTICIPANT_PRUNED_DATA_ACCESSED', 'UPDATE_NOT_FOUND'],
});
