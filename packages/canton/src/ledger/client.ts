/**
 * `LedgerClient`: one method per declared endpoint (`endpoints/`), each a single call of `send`, which parses
 * the request with the declaration's schemas (normalising numeric strings and proto defaults), applies its
 * INTERFACE.md rule, fills the path, and validates the response. Every failure is a `LedgerError`.
 */
import type { z } from 'zod';
import { type Endpoint, fillPath, type Params } from './endpoint.ts';
import { endpoints as E, type EndpointName } from './endpoints/index.ts';
import { invalidArgument } from './errors.ts';
import {
  type CallOptions,
  formatIssues,
  type HttpClientOptions,
  HttpTransport,
  type QueryValue,
  type StreamOptions,
} from './http.ts';
import { iterateUpdates, type UpdateRange, vettedPackagesPages } from './paging.ts';
import { describeViolation } from './rules.ts';
import type * as S from './schemas/index.ts';

export type LedgerClientOptions = HttpClientOptions;
export type { CallOptions, StreamOptions };

type Body<N extends EndpointName> = z.input<(typeof E)[N]['body']>;
type Query<N extends EndpointName> = z.input<(typeof E)[N]['query']>;
type Reply<N extends EndpointName> = Promise<z.output<(typeof E)[N]['response']>>;

interface Input {
  body?: unknown;
  query?: unknown;
  params?: Record<string, string>;
}

export class LedgerClient {
  private readonly http: HttpTransport;

  constructor(opts: LedgerClientOptions) {
    this.http = new HttpTransport(opts);
  }

  /** Sends a request to a declared endpoint; requests that break its schema or rule are never sent. */
  async send<P extends string, B extends z.ZodType, Q extends z.ZodType, R extends z.ZodType>(
    ep: Endpoint<P, B, Q, R>,
    input: { body?: z.input<B>; query?: z.input<Q>; params?: Params<P> },
    opts: CallOptions = {},
  ): Promise<z.output<R>> {
    const what = `${ep.method} ${ep.path}`;
    const { body, query, params } = input as Input;
    const req = parse(ep.body, body, what);
    const q = parse(ep.query, query ?? {}, what) as Record<string, QueryValue | null>;
    const path = fillPath(ep.path, params ?? {});
    if (path.empty) throw invalidArgument(`${what}: ${path.empty} must not be empty`);
    const violation = ep.rule?.(req, (params ?? {}) as Params<P>, q as z.output<Q>);
    if (violation) throw invalidArgument(`${what}: ${describeViolation(violation)}`);
    const wireQuery = Object.fromEntries(
      Object.entries(q).filter((e): e is [string, QueryValue] => e[1] != null),
    );
    return this.http.call(
      { method: ep.method, path: path.path, query: wireQuery, body: req, response: ep.response },
      opts,
    );
  }

  // --- package vetting ---------------------------------------------------------------------------

  listVettedPackages(body: Body<'listVettedPackages'> = {}, opts?: CallOptions): Reply<'listVettedPackages'> {
    return this.send(E.listVettedPackages, { body }, opts);
  }

  /** Every page of the vetted-package listing, following `nextPageToken` until it is empty. */
  vettedPackagesPages(
    body: Omit<Body<'listVettedPackages'>, 'pageToken'> = {},
    opts?: CallOptions,
  ): AsyncGenerator<S.ListVettedPackagesResponse> {
    return vettedPackagesPages(this, body, opts);
  }

  // --- updates and completions -------------------------------------------------------------------

  /** `POST /v2/updates/flats` (deprecated upstream, removed in 3.6; same shape as `updates`). */
  updatesFlats(body: Body<'updatesFlats'>, opts: StreamOptions = {}): Reply<'updatesFlats'> {
    return this.stream(E.updatesFlats, body, opts);
  }

  updates(body: Body<'updates'>, opts: StreamOptions = {}): Reply<'updates'> {
    return this.stream(E.updates, body, opts);
  }

  /** `POST /v2/updates/trees` (deprecated: legacy `filter` with wildcard filters only, no `updateFormat`). */
  updatesTrees(body: Body<'updatesTrees'>, opts: StreamOptions = {}): Reply<'updatesTrees'> {
    return this.stream(E.updatesTrees, body, opts);
  }

  /** `GET /v2/updates/transaction-tree-by-offset/{offset}` (deprecated), as `query.parties` see it. */
  transactionTreeByOffset(
    offset: number | string,
    query: Query<'transactionTreeByOffset'>,
    opts?: CallOptions,
  ): Reply<'transactionTreeByOffset'> {
    return this.send(E.transactionTreeByOffset, { params: { offset: String(offset) }, query }, opts);
  }

  /** `GET /v2/updates/transaction-tree-by-id/{update-id}` (deprecated), as `query.parties` see it. */
  transactionTreeById(
    updateId: string,
    query: Query<'transactionTreeById'>,
    opts?: CallOptions,
  ): Reply<'transactionTreeById'> {
    return this.send(E.transactionTreeById, { params: { 'update-id': updateId }, query }, opts);
  }

  completions(body: Body<'completions'>, opts: StreamOptions = {}): Reply<'completions'> {
    return this.stream(E.completions, body, opts);
  }

  /**
   * Every update in `(beginExclusive, endInclusive]`, ascending or descending, fetched `pageSize` at a time
   * (memory independent of the range size). Without `endInclusive` the current ledger end is used.
   */
  iterateUpdates(range: UpdateRange, opts?: CallOptions): AsyncGenerator<S.Update> {
    return iterateUpdates(this, range, opts);
  }

  transactionByOffset(body: Body<'transactionByOffset'>, opts?: CallOptions): Reply<'transactionByOffset'> {
    return this.send(E.transactionByOffset, { body }, opts);
  }

  transactionById(body: Body<'transactionById'>, opts?: CallOptions): Reply<'transactionById'> {
    return this.send(E.transactionById, { body }, opts);
  }

  updateByOffset(body: Body<'updateByOffset'>, opts?: CallOptions): Reply<'updateByOffset'> {
    return this.send(E.updateByOffset, { body }, opts);
  }

  updateById(body: Body<'updateById'>, opts?: CallOptions): Reply<'updateById'> {
    return this.send(E.updateById, { body }, opts);
  }

  eventsByContractId(body: Body<'eventsByContractId'>, opts?: CallOptions): Reply<'eventsByContractId'> {
    return this.send(E.eventsByContractId, { body }, opts);
  }

  /** `POST /v2/state/active-contracts`: the active contracts at `activeAtOffset` as the event format sees them. */
  activeContracts(
    body: Body<'activeContracts'>,
    query: Query<'activeContracts'> = {},
    opts?: CallOptions,
  ): Reply<'activeContracts'> {
    return this.send(E.activeContracts, { body, query }, opts);
  }

  // --- interactive submission --------------------------------------------------------------------

  prepare(body: Body<'prepare'>, opts?: CallOptions): Reply<'prepare'> {
    return this.send(E.prepare, { body }, opts);
  }

  execute(body: Body<'execute'>, opts?: CallOptions): Reply<'execute'> {
    return this.send(E.execute, { body }, opts);
  }

  executeAndWait(body: Body<'executeAndWait'>, opts?: CallOptions): Reply<'executeAndWait'> {
    return this.send(E.executeAndWait, { body }, opts);
  }

  executeAndWaitForTransaction(
    body: Body<'executeAndWaitForTransaction'>,
    opts?: CallOptions,
  ): Reply<'executeAndWaitForTransaction'> {
    return this.send(E.executeAndWaitForTransaction, { body }, opts);
  }

  // --- version and state -------------------------------------------------------------------------

  version(opts?: CallOptions): Reply<'version'> {
    return this.send(E.version, {}, opts);
  }

  ledgerEnd(opts?: CallOptions): Reply<'ledgerEnd'> {
    return this.send(E.ledgerEnd, {}, opts);
  }

  /** The ledger end as a number (0 on an empty ledger). */
  async ledgerEndOffset(opts?: CallOptions): Promise<number> {
    return (await this.ledgerEnd(opts)).offset ?? 0;
  }

  latestPrunedOffsets(opts?: CallOptions): Reply<'latestPrunedOffsets'> {
    return this.send(E.latestPrunedOffsets, {}, opts);
  }

  connectedSynchronizers(
    query: Query<'connectedSynchronizers'> = {},
    opts?: CallOptions,
  ): Reply<'connectedSynchronizers'> {
    return this.send(E.connectedSynchronizers, { query }, opts);
  }

  // --- parties -----------------------------------------------------------------------------------

  generateExternalPartyTopology(
    body: Body<'generateExternalPartyTopology'>,
    opts?: CallOptions,
  ): Reply<'generateExternalPartyTopology'> {
    return this.send(E.generateExternalPartyTopology, { body }, opts);
  }

  allocateExternalParty(
    body: Body<'allocateExternalParty'>,
    opts?: CallOptions,
  ): Reply<'allocateExternalParty'> {
    return this.send(E.allocateExternalParty, { body }, opts);
  }

  allocateParty(body: Body<'allocateParty'> = {}, opts?: CallOptions): Reply<'allocateParty'> {
    return this.send(E.allocateParty, { body }, opts);
  }

  /** Query names as on the wire: `pageSize`, `pageToken`, `filter-party`, `identity-provider-id`. */
  listParties(query: Query<'listParties'> = {}, opts?: CallOptions): Reply<'listParties'> {
    return this.send(E.listParties, { query }, opts);
  }

  getParty(party: string, opts?: CallOptions): Reply<'getParty'> {
    return this.send(E.getParty, { params: { party } }, opts);
  }

  participantId(opts?: CallOptions): Reply<'participantId'> {
    return this.send(E.participantId, {}, opts);
  }

  // --- users -------------------------------------------------------------------------------------

  authenticatedUser(opts?: CallOptions): Reply<'authenticatedUser'> {
    return this.send(E.authenticatedUser, {}, opts);
  }

  createUser(body: Body<'createUser'>, opts?: CallOptions): Reply<'createUser'> {
    return this.send(E.createUser, { body }, opts);
  }

  listUsers(query: Query<'listUsers'> = {}, opts?: CallOptions): Reply<'listUsers'> {
    return this.send(E.listUsers, { query }, opts);
  }

  getUser(userId: string, opts?: CallOptions): Reply<'getUser'> {
    return this.send(E.getUser, { params: { 'user-id': userId } }, opts);
  }

  deleteUser(userId: string, opts?: CallOptions): Reply<'deleteUser'> {
    return this.send(E.deleteUser, { params: { 'user-id': userId } }, opts);
  }

  /** `updateMask.paths` are proto snake_case paths (`primary_party`, …). */
  updateUser(userId: string, body: Body<'updateUser'>, opts?: CallOptions): Reply<'updateUser'> {
    return this.send(E.updateUser, { body, params: { 'user-id': userId } }, opts);
  }

  listUserRights(userId: string, opts?: CallOptions): Reply<'listUserRights'> {
    return this.send(E.listUserRights, { params: { 'user-id': userId } }, opts);
  }

  grantUserRights(
    userId: string,
    body: Omit<Body<'grantUserRights'>, 'userId'>,
    opts?: CallOptions,
  ): Reply<'grantUserRights'> {
    return this.send(E.grantUserRights, { body: { ...body, userId }, params: { 'user-id': userId } }, opts);
  }

  revokeUserRights(
    userId: string,
    body: Omit<Body<'revokeUserRights'>, 'userId'>,
    opts?: CallOptions,
  ): Reply<'revokeUserRights'> {
    return this.send(E.revokeUserRights, { body: { ...body, userId }, params: { 'user-id': userId } }, opts);
  }

  private async stream<P extends string, B extends z.ZodType, R extends z.ZodType>(
    ep: Endpoint<P, B, typeof S.StreamQuery, R>,
    body: z.input<B>,
    { limit, streamIdleTimeoutMs, ...opts }: StreamOptions,
  ): Promise<z.output<R>> {
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit > 0)) {
      throw invalidArgument(`${ep.method} ${ep.path}: limit must be a positive integer`);
    }
    return this.send(ep, { body, query: { limit, stream_idle_timeout_ms: streamIdleTimeoutMs } }, opts);
  }
}

/** A request part parsed with its schema; a failure is a client-side INVALID_ARGUMENT. */
function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidArgument(`${what}: ${formatIssues(parsed.error)}`);
  return parsed.data;
}
