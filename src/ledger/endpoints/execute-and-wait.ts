/** `POST /v2/interactive-submission/executeAndWait`: Submits a signed prepared transaction and waits for its update id and completion offset. */
import { endpoint } from '../endpoint.ts';
import { ExecuteSubmissionAndWaitResponse, JsExecuteSubmissionAndWaitRequest } from '../schemas/index.ts';

export const executeAndWait = endpoint({
  method: 'POST',
  path: '/v2/interactive-submission/executeAndWait',
  body: JsExecuteSubmissionAndWaitRequest,
  response: ExecuteSubmissionAndWaitResponse,
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
