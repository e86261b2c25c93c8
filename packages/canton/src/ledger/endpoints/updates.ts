/** `POST /v2/updates`: Updates as a bounded JSON list (`limit`, `stream_idle_timeout_ms` for open-ended ranges). */
import { endpoint } from '../endpoint.ts';
import { checkGetUpdatesRequest } from '../rules.ts';
import { GetUpdatesRequest, JsGetUpdatesResponseList, StreamQuery } from '../schemas/index.ts';

/**
 * A template or interface filter naming a package or template this participant does not have
 * (IndexServiceImpl.checkUnknownIdentifiers): every endpoint that reads with a format may answer these, 404.
 */
export const UNKNOWN_IDENTIFIER_ERRORS = [
  'PACKAGE_NAMES_NOT_FOUND',
  'NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME',
  'NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME',
] as const;

export const updates = endpoint({
  method: 'POST',
  path: '/v2/updates',
  body: GetUpdatesRequest,
  query: StreamQuery,
  response: JsGetUpdatesResponseList,
  rule: checkGetUpdatesRequest,
  errors: [
    'INVALID_ARGUMENT',
    'INVALID_FIELD',
    'MISSING_FIELD',
    'NEGATIVE_OFFSET',
    'NON_POSITIVE_OFFSET',
    'DESCENDING_ORDER_MISSING_END',
    'OFFSET_OUT_OF_RANGE',
    'OFFSET_AFTER_LEDGER_END',
    'PARTICIPANT_PRUNED_DATA_ACCESSED',
    'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
    ...UNKNOWN_IDENTIFIER_ERRORS,
  ],
});
