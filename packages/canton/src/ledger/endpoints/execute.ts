/** `POST /v2/interactive-submission/execute`: Submits a signed prepared transaction and returns once it is accepted for processing. */
import { endpoint } from '../endpoint.ts';
import { ExecuteSubmissionResponse, JsExecuteSubmissionRequest } from '../schemas/index.ts';

/** What the three execute forms may answer (they differ only in how long they wait and what they return). */
export const EXECUTE_ERRORS = [
  'INVALID_ARGUMENT',
  'INVALID_FIELD',
  'INVALID_DEDUPLICATION_PERIOD',
  'FAILED_TO_EXECUTE_TRANSACTION',
  'DUPLICATE_COMMAND',
  'SUBMISSION_ALREADY_IN_FLIGHT',
  'REQUEST_TIME_OUT',
  'NOT_SEQUENCED_TIMEOUT',
  'CONTRACT_NOT_FOUND',
  'MISSING_FIELD',
  'LOCAL_VERDICT_INACTIVE_CONTRACTS',
  'LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED',
  'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND',
  'LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND',
  'LOCAL_VERDICT_FAILED_MODEL_CONFORMANCE_CHECK',
] as const;

export const execute = endpoint({
  method: 'POST',
  path: '/v2/interactive-submission/execute',
  body: JsExecuteSubmissionRequest,
  response: ExecuteSubmissionResponse,
  errors: EXECUTE_ERRORS,
});
