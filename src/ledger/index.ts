export { type CallOptions, LedgerClient, type LedgerClientOptions, type StreamOptions } from './client.ts';
export { LedgerAdminClient } from './client-admin.ts';
export { LedgerClientBase } from './client-base.ts';
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
export { jwtExpiry, type TokenOption, TokenSource } from './token.ts';
