/** `GET /v2/state/latest-pruned-offsets`: The offsets up to which the participant has pruned. */
import { endpoint } from '../endpoint.ts';
import { GetLatestPrunedOffsetsResponse } from '../schemas/index.ts';

export const latestPrunedOffsets = endpoint({
  method: 'GET',
  path: '/v2/state/latest-pruned-offsets',
  response: GetLatestPrunedOffsetsResponse,
});
