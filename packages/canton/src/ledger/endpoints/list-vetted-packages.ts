/** `POST /v2/package-vetting/list`: The vetted packages, one page at a time (`pageSize` capped by the participant, `nextPageToken`). */
import { endpoint } from '../endpoint.ts';
import { checkListVettedPackagesRequest } from '../rules.ts';
import { ListVettedPackagesRequest, ListVettedPackagesResponse } from '../schemas/index.ts';

export const listVettedPackages = endpoint({
  method: 'POST',
  path: '/v2/package-vetting/list',
  body: ListVettedPackagesRequest,
  response: ListVettedPackagesResponse,
  rule: checkListVettedPackagesRequest,
  errors: ['INVALID_ARGUMENT', 'PROTO_DESERIALIZATION_FAILURE'],
});
