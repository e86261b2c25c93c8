/** `POST /v2/updates/transaction-by-offset`: The transaction at an offset, as the requesting parties see it. */
import { endpoint } from '../endpoint.ts';
import { checkTransactionByOffsetRequest } from '../rules.ts';
import { GetTransactionByOffsetRequest, JsGetTransactionResponse } from '../schemas/index.ts';
import { UNKNOWN_IDENTIFIER_ERRORS } from './updates.ts';

export const transactionByOffset = endpoint({
  method: 'POST',
  path: '/v2/updates/transaction-by-offset',
  body: GetTransactionByOffsetRequest,
  response: JsGetTransactionResponse,
  rule: checkTransactionByOffsetRequest,
  errors: [
    'INVALID_ARGUMENT',
    'INVALID_FIELD',
    'MISSING_FIELD',
    'NON_POSITIVE_OFFSET',
    'PARTICIPANT_PRUNED_DATA_ACCESSED',
    'UPDATE_NOT_FOUND',
    ...UNKNOWN_IDENTIFIER_ERRORS,
  ],
});
