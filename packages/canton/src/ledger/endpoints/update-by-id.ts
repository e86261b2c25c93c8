/** `POST /v2/updates/update-by-id`: The update with an update id, in an update format. */
import { endpoint } from '../endpoint.ts';
import { checkUpdateByIdRequest } from '../rules.ts';
import { GetUpdateByIdRequest, JsGetUpdateResponse } from '../schemas/index.ts';
import { UNKNOWN_IDENTIFIER_ERRORS } from './updates.ts';

export const updateById = endpoint({
  method: 'POST',
  path: '/v2/updates/update-by-id',
  body: GetUpdateByIdRequest,
  response: JsGetUpdateResponse,
  rule: checkUpdateByIdRequest,
  errors: [
    'INVALID_ARGUMENT',
    'INVALID_FIELD',
    'MISSING_FIELD',
    'UPDATE_NOT_FOUND',
    ...UNKNOWN_IDENTIFIER_ERRORS,
  ],
});
