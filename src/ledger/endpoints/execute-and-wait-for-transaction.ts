/** `POST /v2/interactive-submission/executeAndWaitForTransaction`: Submits a signed prepared transaction and waits for the committed transaction (what the worker calls). */
import { endpoint } from '../endpoint.ts';
import {
  JsExecuteSubmissionAndWaitForTransactionRequest,
  JsExecuteSubmissionAndWaitForTransactionResponse,
} from '../schemas/index.ts';

export const executeAndWaitForTransaction = endpoint({
  method: 'POST',
  path: '/v2/interactive-submission/executeAndWaitForTransaction',
  body: JsExecuteSubmissionAndWaitForTransactionRequest,
  response: JsExecuteSubmissionAndWaitForTransactionResponse,
  errors: [
    'INVALID_ARGUMENT',
    'INVALID_FIELD',
    'INVALID_DEDUPLICATION_PERIOD',
    'FAILED_TO_EXECUTE_TRANSACTION',
    'DUPLICATE_COMMAND',
    'SUBMISSION_ALREADY_IN_FLIGHT',
    'REQUEST_TIME_OUT',
    'NOT_SEQUENCED_TIMEOUT',
    'CONTRACT_NOT_FOUND',
    'LOCAL_VERDICT_INACTIVE_CONTRACTS',
  ],
});
