/** `POST /v2/updates/transaction-by-id`: The transaction with an update id, as the requesting parties see it. */
import { endpoint } from '../endpoint.ts';
import { checkTransactionByIdRequest } from '../rules.ts';
import { GetTransactionByIdRequest, JsGetTransactionResponse } from '../schemas/index.ts';
import { UNKNOWN_IDENTIFIER_ERRORS } from './updates.ts';

export const transactionById = endpoint({
  method: 'POST',
  path: '/v2/updates/transaction-by-id',
  body: GetTransactionByIdRequest,
  response: JsGetTransactionResponse,
  rule: checkTransactionByIdRequest,
  errors: [
    'INVALID_ARGUMENT',
    'INVALID_FIELD',
    'MISSING_FIELD',
    'UPDATE_NOT_FOUND',
    ...UNKNOWN_IDENTIFIER_ERRORS,
  ],
});
