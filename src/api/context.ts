// What the API's routes share: dependencies, the Hono environment, and role/party checks.

import type {
  JsGetEventsByContractIdResponse,
  JsTransaction,
  ListVettedPackagesRequest,
  ListVettedPackagesResponse,
  Update,
  User,
} from '@quill/canton/ledger';
import type { ListActivityResponse } from '@quill/canton/scan';
import type { Context } from 'hono';
import type { Redis } from 'ioredis';
import type { AuditLog } from '../audit/index.ts';
import { allows, type Principal, type Role, type Verifier } from '../auth/index.ts';
import type { Deliveries, EventLog, StreamSlots, WebhookRegistry } from '../events/index.ts';
import type { HistoryIndex } from '../history/index.ts';
import type { IntentService } from '../intents/index.ts';
import type { Log } from '../log.ts';
import type { Registry } from '../metrics.ts';
import type { PolicyProposals, PolicyStore } from '../policy/index.ts';
import type {
  AcceptDeps,
  ExecutorDeps,
  Inspector,
  OutcomeWaiter,
  PipelineMetrics,
  SubmissionRecord,
  SubmissionStore,
} from '../submissions/index.ts';
import { ApiError } from './errors.ts';
import type {
  KeyChangeBody,
  KeyChangeView,
  NewPartyBody,
  PartyView,
  PreparedPartyView,
} from './party-schemas.ts';
import type { AcceptLimiter } from './rate-limit.ts';
import type { KeyBackendView, KeyFileProblemView, KeyView } from './schemas.ts';

/** Key administration over src/signing's KeyStore. */
export interface KeyAdmin {
  generate(algorithm: KeyView['algorithm'], label?: string, backend?: KeyView['backend']): Promise<KeyView>;
  list(): Promise<KeyView[]>;
  /** The healthy keys and each key file that failed to open, by base name. */
  survey(): Promise<{ keys: KeyView[]; problems: KeyFileProblemView[] }>;
  get(fingerprint: string): Promise<KeyView | undefined>;
  disable(fingerprint: string): Promise<KeyView>;
  /** Takes over a key made outside Quill, named by `ref` as its backend names keys. */
  adopt(backend: KeyView['backend'], ref: string, label?: string): Promise<KeyView>;
  /** Every backend Quill knows and what it can do in this process. */
  backends(): KeyBackendView[];
}

/** Party administration over src/parties. */
export interface PartyAdmin {
  onboard(input: NewPartyBody): Promise<PartyView>;
  /** The topology an M-of-N onboarding would send, and the hashes its keys sign; nothing is sent. */
  prepare(input: NewPartyBody): Promise<PreparedPartyView>;
  list(): Promise<PartyView[]>;
  get(partyId: string): Promise<PartyView | undefined>;
  /** A change of the party's signing keys through the participant's admin API (audit: who signed what). */
  changeKeys(
    partyId: string,
    change: KeyChangeBody,
  ): Promise<KeyChangeView & { hash?: string; signedBy?: string[] }>;
}

/** Events, the live stream and webhooks (issue 14 part B). */
export interface EventsDeps {
  log: EventLog;
  hooks: WebhookRegistry;
  deliveries: Deliveries;
  /** A new Redis connection for one stream's blocking reads (closed by the stream). */
  connect(): Redis;
  /** The open-stream caps (each stream holds one of those connections): per token and per process. */
  streams: StreamSlots;
  heartbeatMs: number;
  allowPrivateTargets: boolean | 'loopback';
  secretGraceMs: number;
  /** Aborted at shutdown: every open stream ends. */
  closing: AbortSignal;
}

export interface AppDeps {
  store: SubmissionStore;
  accept: AcceptDeps;
  waiter: OutcomeWaiter;
  /** 'none' only with --insecure-no-auth: every caller is an admin without party scope. */
  auth: Verifier | 'none';
  metrics: PipelineMetrics;
  /** The process's metrics (/metrics). */
  registry: Registry;
  redis: Redis;
  /** Resolves when the ledger answers; rejects otherwise. */
  ledgerReady: () => Promise<void>;
  /** Whether the ledger accepts the wallet's credentials (/readyz `ledgerAuth`). */
  ledgerAuth?: () => { ok: boolean; code?: string; since?: string; message?: string };
  keys?: KeyAdmin;
  parties?: PartyAdmin;
  /** Versions of the approval policy (issue 15); absent: GET/PUT /wallet/v1/policy answer from accept.policy. */
  policies?: PolicyStore;
  /** Proposed policy versions awaiting their governance quorum (`policyGovernance`). */
  proposals?: PolicyProposals;
  /** The audit chain: read by GET /wallet/v1/audit, appended to for key changes. */
  audit: AuditLog;
  batchMax: number;
  /** Sizes a request may have: a prepared transaction (decoded bytes) and a whole batch body. */
  limits: { preparedTransactionBytes: number; batchBytes: number };
  waitMaxSeconds: number;
  /** Counts accepts per token; throws 429 over the limit (absent: no limit). */
  limitAccepts?: AcceptLimiter;
  /** Access lines and unexpected errors; nothing is logged without it. */
  log?: Log;
  events?: EventsDeps;
  /** The watcher's party history index: transactions, holdings and transfer instructions by party. */
  history?: Pick<HistoryIndex, 'page' | 'holdings' | 'instructions'> &
    Partial<Pick<HistoryIndex, 'byUpdateId' | 'byHash'>>;
  /**
   * Reads large inputs off the request thread (stored transactions' previews, request bodies), inline below the
   * inspection pool's threshold; absent: everything inline, holdings valued by the built-in recognizers.
   */
  inspector?: Inspector;
  /** Ledger reads as one party (GET /wallet/v1/ledger/…); absent: those routes answer 503. */
  ledgerReads?: LedgerReads;
  /** Quill's own prepare of transfers, instruction answers and commands; absent: those routes answer 503. */
  intents?: IntentService;
  /** The worker's executor, for an admin's search of the ledger and expiry (…/search, …/expire); absent: 503. */
  executor?: ExecutorDeps;
  /** What needs an operator beyond the records (GET /wallet/v1/operations); absent: that route answers 503. */
  operations?: () => Promise<OperationsView>;
  /** Mints a one-time console sign-in link's token (POST /wallet/v1/console/links); absent: links are off. */
  mintConsoleLink?: (req: ConsoleLinkRequest) => Promise<string>;
}

/** A console sign-in link to mint: who it signs in, with which role and party, for how long. */
export interface ConsoleLinkRequest {
  subject: string;
  role: Role;
  party?: string;
  ttlSeconds: number;
}

/** A lease as Redis holds it: its holder's label and how long it lives without renewal. */
export interface LeaseView {
  holder: string;
  ttlMs: number;
}

/** The deployment's moving parts an operator watches (GET /wallet/v1/operations). */
export interface OperationsView {
  watcher: { checkpoint: number | null; ledgerEnd: number | null; lease: LeaseView | null };
  leader: LeaseView | null;
  queue: { waiting: number; delayed: number; oldestWaitingAt: string | null; oldestDelayedAt: string | null };
  webhooks: { id: string; url: string; dead: number }[];
}

/** What PATCH /wallet/v1/ledger/user may change: anything of the User but its id (the wallet's own). */
export type LedgerUserChange = Omit<User, 'id'>;

/** Point reads of the ledger as a party, through the wallet's own ledger client; the ledger contract's types. */
export interface LedgerReads {
  transactionById(updateId: string, party: string): Promise<JsTransaction>;
  transactionByOffset(offset: number, party: string): Promise<JsTransaction>;
  /** INTERFACE.md 4.1: the vetted packages, filtered and paged as the ledger does. */
  vettedPackages(request: ListVettedPackagesRequest): Promise<ListVettedPackagesResponse>;
  /** INTERFACE.md 4.2: updates between two offsets (either order) as the party sees them, at most `limit`. */
  updates(
    range: { beginExclusive: number; endInclusive: number; descendingOrder: boolean; limit: number },
    party: string,
  ): Promise<Update[]>;
  /**
   * The create and (when spent) archive of a contract as the party sees them
   * (`/v2/events/events-by-contract-id`); undefined when the ledger does not show it to the party.
   */
  contractEvents?(contractId: string, party: string): Promise<JsGetEventsByContractIdResponse | undefined>;
  /** INTERFACE.md 4.5: the update at an offset as the party sees it (as the ledger answers: it may omit it). */
  updateByOffset(offset: number, party: string): Promise<Update | undefined>;
  /** INTERFACE.md 4.6: the wallet's own ledger user, and a change to it through an update mask. */
  user(): Promise<User>;
  updateUser(change: { user: LedgerUserChange; paths: string[] }): Promise<User>;
  /** Whether the ledger knows the party (GET /v2/parties/{party}); absent: not checked. */
  partyKnown?(party: string): Promise<boolean>;
  /** INTERFACE.md 4.8: one page of the network's activity feed (in its order); absent without SCAN_URL. */
  activities?(request: { page_size: number; begin_after_id?: string }): Promise<ListActivityResponse>;
}

export type AppEnv = { Variables: { principal: Principal; requestId: string } };

/**
 * The console calls the API in process (`app.request(path, init, { [AS_PRINCIPAL]: p })`) as its signed-in
 * operator: the same routes, role and party checks as any token. A symbol, so no HTTP request can carry it.
 */
export const AS_PRINCIPAL: unique symbol = Symbol('quill.principal');

export function inProcessPrincipal(env: unknown): Principal | undefined {
  return typeof env === 'object' && env !== null
    ? (env as { [AS_PRINCIPAL]?: Principal })[AS_PRINCIPAL]
    : undefined;
}

export function need(c: Context<AppEnv>, role: Role): Principal {
  const p = c.get('principal');
  if (!allows(p.role, role)) throw new ApiError(403, 'FORBIDDEN', `this needs the ${role} role`);
  return p;
}

/** The ledger reads, or 503 where this process has none. */
export function ledgerReadsOf(deps: AppDeps): LedgerReads {
  if (!deps.ledgerReads)
    throw new ApiError(503, 'UNAVAILABLE', 'ledger reads are not available in this process');
  return deps.ledgerReads;
}

/** A party-scoped token sees only its party's records; others look like they do not exist. */
export function visible(p: Principal, rec: SubmissionRecord | undefined): SubmissionRecord | undefined {
  return rec && (p.party === undefined || p.party === rec.party) ? rec : undefined;
}
