/** `POST /v2/events/events-by-contract-id`: The create (and archive) event of a contract, as the parties of an event format see them. */
import { endpoint } from '../endpoint.ts';
import { GetEventsByContractIdRequest, JsGetEventsByContractIdResponse } from '../schemas/index.ts';

export const eventsByContractId = endpoint({
  method: 'POST',
  path: '/v2/events/events-by-contract-id',
  body: GetEventsByContractIdRequest,
  response: JsGetEventsByContractIdResponse,
  errors: ['INVALID_ARGUMENT', 'CONTRACT_EVENTS_NOT_FOUND'],
});
