/**
 * `POST /v2/state/active-contracts`: the active contracts at an offset as a bounded JSON list (`limit`; more than
 * the server's list maximum is 413), as the parties of an event format see them (ACS_DELTA created events).
 */
import { z } from 'zod';
import { endpoint } from '../endpoint.ts';
import { checkGetActiveContractsRequest } from '../rules.ts';
import { GetActiveContractsRequest, JsGetActiveContractsResponse, StreamQuery } from '../schemas/index.ts';
import { UNKNOWN_IDENTIFIER_ERRORS } from './updates.ts';

export const activeContracts = endpoint({
  method: 'POST',
  path: '/v2/state/active-contracts',
  body: GetActiveContractsRequest,
  query: StreamQuery,
  response: z.array(JsGetActiveContractsResponse),
  rule: checkGetActiveContractsRequest,
  errors: [
    'INVALID_ARGUMENT',
    'INVALID_FIELD',
    'MISSING_FIELD',
    'NEGATIVE_OFFSET',
    'OFFSET_AFTER_LEDGER_END',
    'PARTICIPANT_PRUNED_DATA_ACCESSED',
    'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
    ...UNKNOWN_IDENTIFIER_ERRORS,
  ],
});
