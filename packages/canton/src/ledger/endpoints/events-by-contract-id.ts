/** `POST /v2/events/events-by-contract-id`: The create (and archive) event of a contract, as the parties of an event format see them. */
import { endpoint } from '../endpoint.ts';
import { checkEventsByContractIdRequest } from '../rules.ts';
import { GetEventsByContractIdRequest, JsGetEventsByContractIdResponse } from '../schemas/index.ts';
import { UNKNOWN_IDENTIFIER_ERRORS } from './updates.ts';

export const eventsByContractId = endpoint({
  method: 'POST',
  path: '/v2/events/events-by-contract-id',
  body: GetEventsByContractIdRequest,
  response: JsGetEventsByContractIdResponse,
  rule: checkEventsByContractIdRequest,
  errors: [
    'INVALID_ARGUMENT',
    'INVALID_FIELD',
    'MISSING_FIELD',
    'CONTRACT_EVENTS_NOT_FOUND',
    ...UNKNOWN_IDENTIFIER_ERRORS,
  ],
});
