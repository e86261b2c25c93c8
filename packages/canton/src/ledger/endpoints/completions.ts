/** `POST /v2/commands/completions`: Command completions of a user's commands for some parties, as a bounded JSON list. */
import { endpoint } from '../endpoint.ts';
import { CompletionStreamRequest, CompletionStreamResponseList, StreamQuery } from '../schemas/index.ts';

export const completions = endpoint({
  method: 'POST',
  path: '/v2/commands/completions',
  body: CompletionStreamRequest,
  query: StreamQuery,
  response: CompletionStreamResponseList,
  errors: [
    'INVALID_ARGUMENT',
    'MISSING_FIELD',
    'NEGATIVE_OFFSET',
    'OFFSET_AFTER_LEDGER_END',
    'PARTICIPANT_PRUNED_DATA_ACCESSED',
  ],
});
