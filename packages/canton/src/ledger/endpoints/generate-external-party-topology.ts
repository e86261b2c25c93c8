/** `POST /v2/parties/external/generate-topology`: The topology transactions (and their multi-hash) that make a public key an external party's key. */
import { endpoint } from '../endpoint.ts';
import {
  GenerateExternalPartyTopologyRequest,
  GenerateExternalPartyTopologyResponse,
} from '../schemas/index.ts';

export const generateExternalPartyTopology = endpoint({
  method: 'POST',
  path: '/v2/parties/external/generate-topology',
  body: GenerateExternalPartyTopologyRequest,
  response: GenerateExternalPartyTopologyResponse,
  errors: ['INVALID_ARGUMENT', 'INVALID_FIELD'],
});
