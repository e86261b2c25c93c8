/** `POST /v2/updates/update-by-offset`: The update at an offset, in an update format. */
import { endpoint } from '../endpoint.ts';
import { checkUpdateByOffsetRequest } from '../rules.ts';
import { GetUpdateByOffsetRequest, JsGetUpdateResponse } from '../schemas/index.ts';
import { UNKNOWN_IDENTIFIER_ERRORS } from './updates.ts';

export const updateByOffset = endpoint({
  method: 'POST',
  path: '/v2/updates/update-by-offset',
  body: GetUpdateByOffsetRequest,
  response: JsGetUpdateResponse,
  rule: checkUpdateByOffsetRequest,
  errors: [
    'INVALID_ARGUMENT',
    'INVALID_FIELD',
    'MISSING_FIELD',
    'NON_POSITIVE_OFFSET',
    'PARTICIPANT_PRUNED_DATA_ACCESSED',
    'UPDATE_NOT_FOUND',
    ...UNKNOWN_IDENTIFIER_ERRORS,
  ],
});
