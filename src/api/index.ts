// Public surface of the wallet HTTP API.
export { createApp, type WalletApp } from './app.ts';
export {
  type AppDeps,
  AS_PRINCIPAL,
  type EventsDeps,
  type KeyAdmin,
  type LedgerReads,
  type OperationsView,
  type PartyAdmin,
} from './context.ts';
export { ApiError, describeCause, ErrorBody, type HttpError, toHttpError } from './errors.ts';
export { setResponseHeader } from './headers.ts';
export { ledgerReads } from './ledger-reads.ts';
export type { PartyView } from './party-schemas.ts';
export { type ProbeDeps, probeRoutes } from './probes.ts';
export { type AcceptLimiter, type AcceptRateLimit, acceptLimiter } from './rate-limit.ts';
export type { KeyView } from './schemas.ts';
