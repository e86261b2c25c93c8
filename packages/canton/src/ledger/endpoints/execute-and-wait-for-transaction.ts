/** `POST /v2/interactive-submission/executeAndWaitForTransaction`: Submits a signed prepared transaction and waits for the committed transaction (what the worker calls). */
import { endpoint } from '../endpoint.ts';
import { checkTransactionFormat } from '../rules.ts';
import {
  JsExecuteSubmissionAndWaitForTransactionRequest,
  JsExecuteSubmissionAndWaitForTransactionResponse,
} from '../schemas/index.ts';
import { EXECUTE_ERRORS } from './execute.ts';
import { UNKNOWN_IDENTIFIER_ERRORS } from './updates.ts';

export const executeAndWaitForTransaction = endpoint({
  method: 'POST',
  path: '/v2/interactive-submission/executeAndWaitForTransaction',
  body: JsExecuteSubmissionAndWaitForTransactionRequest,
  response: JsExecuteSubmissionAndWaitForTransactionResponse,
  rule: (body) => (body.transactionFormat ? checkTransactionFormat(body.transactionFormat) : undefined),
  ruleAfterCommit: true,
  errors: [...EXECUTE_ERRORS, ...UNKNOWN_IDENTIFIER_ERRORS],
});
