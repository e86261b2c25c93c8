/** `GET /v2/parties/participant-id`: The participant's id. */
import { endpoint } from '../endpoint.ts';
import { GetParticipantIdResponse } from '../schemas/index.ts';

export const participantId = endpoint({
  method: 'GET',
  path: '/v2/parties/participant-id',
  response: GetParticipantIdResponse,
});
