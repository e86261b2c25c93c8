/** `POST /v2/interactive-submission/executeAndWait`: Submits a signed prepared transaction and waits for its update id and completion offset. */
import { endpoint } from '../endpoint.ts';
import { ExecuteSubmissionAndWaitResponse, JsExecuteSubmissionAndWaitRequest } from '../schemas/index.ts';
import { EXECUTE_ERRORS } from './execute.ts';

export const executeAndWait = endpoint({
  method: 'POST',
  path: '/v2/interactive-submission/executeAndWait',
  body: JsExecuteSubmissionAndWaitRequest,
  response: ExecuteSubmissionAndWaitResponse,
  errors: EXECUTE_ERRORS,
});
