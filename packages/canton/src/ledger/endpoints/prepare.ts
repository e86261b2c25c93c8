/** `POST /v2/interactive-submission/prepare`: Prepares a transaction for external signing (the hash it returns is untrusted: recompute it). */
import { endpoint } from '../endpoint.ts';
import { JsPrepareSubmissionRequest, JsPrepareSubmissionResponse } from '../schemas/index.ts';

export const prepare = endpoint({
  method: 'POST',
  path: '/v2/interactive-submission/prepare',
  body: JsPrepareSubmissionRequest,
  response: JsPrepareSubmissionResponse,
  errors: [
    'INVALID_ARGUMENT',
    'INVALID_FIELD',
    'MISSING_FIELD',
    'FAILED_TO_PREPARE_TRANSACTION',
    'CONTRACT_NOT_FOUND',
    'PARTY_NOT_KNOWN_ON_LEDGER',
  ],
});
