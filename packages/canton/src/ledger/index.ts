export { type CallOptions, LedgerClient, type LedgerClientOptions, type StreamOptions } from './client.ts';
export { type Endpoint, endpoint, type Method, type Params, pathParams } from './endpoint.ts';
export { type EndpointName, endpoints } from './endpoints/index.ts';
export {
  cancelledError,
  fromCantonError,
  fromHttpStatus,
  fromTransport,
  invalidArgument,
  invalidResponse,
  isLedgerError,
  LedgerError,
  type LedgerErrorInit,
  oneLine,
  timeoutError,
} from './errors.ts';
export {
  type ErrorBodyMapper,
  formatIssues,
  type HttpClientOptions,
  type HttpRequest,
  HttpTransport,
} from './http.ts';
export { iterateUpdates, MAX_UPDATES_PAGE, type UpdateRange, vettedPackagesPages } from './paging.ts';
export * from './rules.ts';
export * from './schemas/index.ts';
export {
  jwtExpiry,
  type LedgerTokenSettings,
  ledgerTokenOption,
  type OAuthClientCredentials,
  type TokenOption,
  TokenSource,
} from './token.ts';
