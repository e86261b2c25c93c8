/**
 * `LedgerClient`: one typed method per JSON Ledger API v2 endpoint Quill uses. Each request body is parsed
 * with its schema (normalising numeric strings and proto defaults) and checked against INTERFACE.md's rules
 * before sending; each response is validated. Every failure is a `LedgerError`.
 */
import type { z } from 'zod';
import { invalidArgument } from './errors.ts';
import {
  type CallOptions,
  formatIssues,
  type HttpClientOptions,
  type HttpRequest,
  HttpTransport,
} from './http.ts';
import { iterateUpdates, type UpdateRange, vettedPackagesPages } from './paging.ts';
import {
  checkGetUpdatesRequest,
  checkTransactionByIdRequest,
  checkTransactionByOffsetRequest,
  checkUpdateByOffset,
  checkUpdateUserRequest,
} from './rules.ts';
import * as S from './schemas/index.ts';

export type LedgerClientOptions = HttpClientOptions;
export type { CallOptions };

/** Query parameters of the list endpoints (`/v2/updates`, `/v2/updates/flats`). */
export interface StreamOptions extends CallOptions {
  /** Maximum number of elements; keep it ≤ 200 (the participant answers 413 above its list limit). */
  limit?: number;
  /** For open-ended ranges: complete when no element arrives for this long. */
  streamIdleTimeoutMs?: number;
}

type In<T extends z.ZodType> = z.input<T>;

export class LedgerClient {
  private readonly http: HttpTransport;

  constructor(opts: LedgerClientOptions) {
    this.http = new HttpTransport(opts);
  }

  private call<T extends z.ZodType>(req: HttpRequest<T>, opts?: CallOptions): Promise<z.output<T>> {
    return this.http.call(req, opts);
  }

  /** Parses a request body with its schema; a failure is a client-side INVALID_ARGUMENT. */
  private body<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw invalidArgument(`${what}: ${formatIssues(parsed.error)}`);
    return parsed.data;
  }

  private check(problem: string | undefined, what: string): void {
    if (problem) throw invalidArgument(`${what}: ${problem}`);
  }

  // --- version and state ---------------------------------------------------------------------------

  version(opts?: CallOptions): Promise<S.GetLedgerApiVersionResponse> {
    return this.call({ method: 'GET', path: '/v2/version', response: S.GetLedgerApiVersionResponse }, opts);
  }

  ledgerEnd(opts?: CallOptions): Promise<S.GetLedgerEndResponse> {
    return this.call({ method: 'GET', path: '/v2/state/ledger-end', response: S.GetLedgerEndResponse }, opts);
  }

  /** The ledger end as a number (0 on an empty ledger). */
  async ledgerEndOffset(opts?: CallOptions): Promise<number> {
    return (await this.ledgerEnd(opts)).offset ?? 0;
  }

  latestPrunedOffsets(opts?: CallOptions): Promise<S.GetLatestPrunedOffsetsResponse> {
    return this.call(
      { method: 'GET', path: '/v2/state/latest-pruned-offsets', response: S.GetLatestPrunedOffsetsResponse },
      opts,
    );
  }

  connectedSynchronizers(
    query: { party?: string; participantId?: string; identityProviderId?: string } = {},
    opts?: CallOptions,
  ): Promise<S.GetConnectedSynchronizersResponse> {
    return this.call(
      {
        method: 'GET',
        path: '/v2/state/connected-synchronizers',
        query,
        response: S.GetConnectedSynchronizersResponse,
      },
      opts,
    );
  }

  // --- package vetting -----------------------------------------------------------------------------

  listVettedPackages(
    body: In<typeof S.ListVettedPackagesRequest> = {},
    opts?: CallOptions,
  ): Promise<S.ListVettedPackagesResponse> {
    const what = 'POST /v2/package-vetting/list';
    const req = this.body(S.ListVettedPackagesRequest, body, what);
    if (req.pageSize != null && req.pageSize < 0) this.check('pageSize must not be negative', what);
    return this.call(
      { method: 'POST', path: '/v2/package-vetting/list', body: req, response: S.ListVettedPackagesResponse },
      opts,
    );
  }

  /** Every page of the vetted-package listing, following `nextPageToken` until it is empty. */
  vettedPackagesPages(
    body: Omit<In<typeof S.ListVettedPackagesRequest>, 'pageToken'> = {},
    opts?: CallOptions,
  ): AsyncGenerator<S.ListVettedPackagesResponse> {
    return vettedPackagesPages(this, body, opts);
  }

  // --- updates -------------------------------------------------------------------------------------

  /** `POST /v2/updates/flats` (deprecated upstream, removed in 3.6; same shape as `updates`). */
  updatesFlats(
    body: In<typeof S.GetUpdatesRequest>,
    opts: StreamOptions = {},
  ): Promise<S.JsGetUpdatesResponse[]> {
    return this.updatesAt('/v2/updates/flats', body, opts);
  }

  /** `POST /v2/updates`. */
  updates(body: In<typeof S.GetUpdatesRequest>, opts: StreamOptions = {}): Promise<S.JsGetUpdatesResponse[]> {
    return this.updatesAt('/v2/updates', body, opts);
  }

  private updatesAt(
    path: '/v2/updates' | '/v2/updates/flats',
    body: In<typeof S.GetUpdatesRequest>,
    opts: StreamOptions,
  ): Promise<S.JsGetUpdatesResponse[]> {
    const what = `POST ${path}`;
    const req = this.body(S.GetUpdatesRequest, body, what);
    this.check(checkGetUpdatesRequest(req), what);
    const { limit, streamIdleTimeoutMs, ...callOpts } = opts;
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit > 0)) {
      this.check('limit must be a positive integer', what);
    }
    return this.call(
      {
        method: 'POST',
        path,
        query: { limit, stream_idle_timeout_ms: streamIdleTimeoutMs },
        body: req,
        response: S.JsGetUpdatesResponseList,
      },
      callOpts,
    );
  }

  /**
   * Every update in `(beginExclusive, endInclusive]`, ascending or descending, fetched `pageSize` at a time
   * (memory independent of the range size). Without `endInclusive` the current ledger end is used.
   */
  iterateUpdates(range: UpdateRange, opts?: CallOptions): AsyncGenerator<S.Update> {
    return iterateUpdates(this, range, opts);
  }

  transactionByOffset(
    body: In<typeof S.GetTransactionByOffsetRequest>,
    opts?: CallOptions,
  ): Promise<S.JsGetTransactionResponse> {
    const what = 'POST /v2/updates/transaction-by-offset';
    const req = this.body(S.GetTransactionByOffsetRequest, body, what);
    this.check(checkTransactionByOffsetRequest(req), what);
    return this.call(
      {
        method: 'POST',
        path: '/v2/updates/transaction-by-offset',
        body: req,
        response: S.JsGetTransactionResponse,
      },
      opts,
    );
  }

  transactionById(
    body: In<typeof S.GetTransactionByIdRequest>,
    opts?: CallOptions,
  ): Promise<S.JsGetTransactionResponse> {
    const what = 'POST /v2/updates/transaction-by-id';
    const req = this.body(S.GetTransactionByIdRequest, body, what);
    this.check(checkTransactionByIdRequest(req), what);
    return this.call(
      {
        method: 'POST',
        path: '/v2/updates/transaction-by-id',
        body: req,
        response: S.JsGetTransactionResponse,
      },
      opts,
    );
  }

  updateByOffset(
    body: In<typeof S.GetUpdateByOffsetRequest>,
    opts?: CallOptions,
  ): Promise<S.JsGetUpdateResponse> {
    const what = 'POST /v2/updates/update-by-offset';
    const req = this.body(S.GetUpdateByOffsetRequest, body, what);
    this.check(checkUpdateByOffset(req.offset), what);
    return this.call(
      { method: 'POST', path: '/v2/updates/update-by-offset', body: req, response: S.JsGetUpdateResponse },
      opts,
    );
  }

  updateById(body: In<typeof S.GetUpdateByIdRequest>, opts?: CallOptions): Promise<S.JsGetUpdateResponse> {
    const what = 'POST /v2/updates/update-by-id';
    const req = this.body(S.GetUpdateByIdRequest, body, what);
    if (!req.updateId) this.check('updateId must not be empty', what);
    return this.call(
      { method: 'POST', path: '/v2/updates/update-by-id', body: req, response: S.JsGetUpdateResponse },
      opts,
    );
  }

  eventsByContractId(
    body: In<typeof S.GetEventsByContractIdRequest>,
    opts?: CallOptions,
  ): Promise<S.JsGetEventsByContractIdResponse> {
    const what = 'POST /v2/events/events-by-contract-id';
    const req = this.body(S.GetEventsByContractIdRequest, body, what);
    return this.call(
      {
        method: 'POST',
        path: '/v2/events/events-by-contract-id',
        body: req,
        response: S.JsGetEventsByContractIdResponse,
      },
      opts,
    );
  }

  // --- interactive submission ----------------------------------------------------------------------

  prepare(
    body: In<typeof S.JsPrepareSubmissionRequest>,
    opts?: CallOptions,
  ): Promise<S.JsPrepareSubmissionResponse> {
    const what = 'POST /v2/interactive-submission/prepare';
    const req = this.body(S.JsPrepareSubmissionRequest, body, what);
    return this.call(
      {
        method: 'POST',
        path: '/v2/interactive-submission/prepare',
        body: req,
        response: S.JsPrepareSubmissionResponse,
      },
      opts,
    );
  }

  execute(
    body: In<typeof S.JsExecuteSubmissionRequest>,
    opts?: CallOptions,
  ): Promise<S.ExecuteSubmissionResponse> {
    const what = 'POST /v2/interactive-submission/execute';
    const req = this.body(S.JsExecuteSubmissionRequest, body, what);
    return this.call(
      {
        method: 'POST',
        path: '/v2/interactive-submission/execute',
        body: req,
        response: S.ExecuteSubmissionResponse,
      },
      opts,
    );
  }

  executeAndWait(
    body: In<typeof S.JsExecuteSubmissionAndWaitRequest>,
    opts?: CallOptions,
  ): Promise<S.ExecuteSubmissionAndWaitResponse> {
    const what = 'POST /v2/interactive-submission/executeAndWait';
    const req = this.body(S.JsExecuteSubmissionAndWaitRequest, body, what);
    return this.call(
      {
        method: 'POST',
        path: '/v2/interactive-submission/executeAndWait',
        body: req,
        response: S.ExecuteSubmissionAndWaitResponse,
      },
      opts,
    );
  }

  executeAndWaitForTransaction(
    body: In<typeof S.JsExecuteSubmissionAndWaitForTransactionRequest>,
    opts?: CallOptions,
  ): Promise<S.JsExecuteSubmissionAndWaitForTransactionResponse> {
    const what = 'POST /v2/interactive-submission/executeAndWaitForTransaction';
    const req = this.body(S.JsExecuteSubmissionAndWaitForTransactionRequest, body, what);
    return this.call(
      {
        method: 'POST',
        path: '/v2/interactive-submission/executeAndWaitForTransaction',
        body: req,
        response: S.JsExecuteSubmissionAndWaitForTransactionResponse,
      },
      opts,
    );
  }

  // --- parties -------------------------------------------------------------------------------------

  generateExternalPartyTopology(
    body: In<typeof S.GenerateExternalPartyTopologyRequest>,
    opts?: CallOptions,
  ): Promise<S.GenerateExternalPartyTopologyResponse> {
    const what = 'POST /v2/parties/external/generate-topology';
    const req = this.body(S.GenerateExternalPartyTopologyRequest, body, what);
    return this.call(
      {
        method: 'POST',
        path: '/v2/parties/external/generate-topology',
        body: req,
        response: S.GenerateExternalPartyTopologyResponse,
      },
      opts,
    );
  }

  allocateExternalParty(
    body: In<typeof S.AllocateExternalPartyRequest>,
    opts?: CallOptions,
  ): Promise<S.AllocateExternalPartyResponse> {
    const what = 'POST /v2/parties/external/allocate';
    const req = this.body(S.AllocateExternalPartyRequest, body, what);
    return this.call(
      {
        method: 'POST',
        path: '/v2/parties/external/allocate',
        body: req,
        response: S.AllocateExternalPartyResponse,
      },
      opts,
    );
  }

  listParties(
    query: { pageSize?: number; pageToken?: string; filterParty?: string; identityProviderId?: string } = {},
    opts?: CallOptions,
  ): Promise<S.ListKnownPartiesResponse> {
    const q = {
      pageSize: query.pageSize,
      pageToken: query.pageToken,
      'filter-party': query.filterParty,
      'identity-provider-id': query.identityProviderId,
    };
    return this.call(
      { method: 'GET', path: '/v2/parties', query: q, response: S.ListKnownPartiesResponse },
      opts,
    );
  }

  getParty(party: string, opts?: CallOptions): Promise<S.GetPartiesResponse> {
    if (!party) throw invalidArgument('GET /v2/parties/{party}: party must not be empty');
    return this.call(
      { method: 'GET', path: `/v2/parties/${encodeURIComponent(party)}`, response: S.GetPartiesResponse },
      opts,
    );
  }

  participantId(opts?: CallOptions): Promise<S.GetParticipantIdResponse> {
    return this.call(
      { method: 'GET', path: '/v2/parties/participant-id', response: S.GetParticipantIdResponse },
      opts,
    );
  }

  // --- users ---------------------------------------------------------------------------------------

  authenticatedUser(opts?: CallOptions): Promise<S.GetUserResponse> {
    return this.call({ method: 'GET', path: '/v2/authenticated-user', response: S.GetUserResponse }, opts);
  }

  createUser(body: In<typeof S.CreateUserRequest>, opts?: CallOptions): Promise<S.CreateUserResponse> {
    const req = this.body(S.CreateUserRequest, body, 'POST /v2/users');
    return this.call({ method: 'POST', path: '/v2/users', body: req, response: S.CreateUserResponse }, opts);
  }

  listUsers(
    query: { pageSize?: number; pageToken?: string } = {},
    opts?: CallOptions,
  ): Promise<S.ListUsersResponse> {
    return this.call(
      { method: 'GET', path: '/v2/users', query: { ...query }, response: S.ListUsersResponse },
      opts,
    );
  }

  getUser(userId: string, opts?: CallOptions): Promise<S.GetUserResponse> {
    return this.call({ method: 'GET', path: this.userPath(userId, ''), response: S.GetUserResponse }, opts);
  }

  deleteUser(userId: string, opts?: CallOptions): Promise<S.DeleteUserResponse> {
    return this.call(
      { method: 'DELETE', path: this.userPath(userId, ''), response: S.DeleteUserResponse },
      opts,
    );
  }

  /** `PATCH /v2/users/{user-id}`: `updateMask.paths` are proto snake_case paths (`primary_party`, …). */
  updateUser(
    userId: string,
    body: In<typeof S.UpdateUserRequest>,
    opts?: CallOptions,
  ): Promise<S.UpdateUserResponse> {
    const what = 'PATCH /v2/users/{user-id}';
    const req = this.body(S.UpdateUserRequest, body, what);
    this.check(checkUpdateUserRequest(userId, req), what);
    // The spec lists unknownFields as required; the participant defaults it. Send it so both agree.
    const wire = {
      ...req,
      updateMask: { ...req.updateMask, unknownFields: req.updateMask.unknownFields ?? EMPTY_FIELDS },
    };
    return this.call(
      { method: 'PATCH', path: this.userPath(userId, ''), body: wire, response: S.UpdateUserResponse },
      opts,
    );
  }

  listUserRights(userId: string, opts?: CallOptions): Promise<S.ListUserRightsResponse> {
    return this.call(
      { method: 'GET', path: this.userPath(userId, '/rights'), response: S.ListUserRightsResponse },
      opts,
    );
  }

  grantUserRights(
    userId: string,
    body: Omit<In<typeof S.GrantUserRightsRequest>, 'userId'>,
    opts?: CallOptions,
  ): Promise<S.GrantUserRightsResponse> {
    const req = this.body(S.GrantUserRightsRequest, { ...body, userId }, 'POST /v2/users/{user-id}/rights');
    return this.call(
      {
        method: 'POST',
        path: this.userPath(userId, '/rights'),
        body: req,
        response: S.GrantUserRightsResponse,
      },
      opts,
    );
  }

  revokeUserRights(
    userId: string,
    body: Omit<In<typeof S.RevokeUserRightsRequest>, 'userId'>,
    opts?: CallOptions,
  ): Promise<S.RevokeUserRightsResponse> {
    const req = this.body(S.RevokeUserRightsRequest, { ...body, userId }, 'PATCH /v2/users/{user-id}/rights');
    return this.call(
      {
        method: 'PATCH',
        path: this.userPath(userId, '/rights'),
        body: req,
        response: S.RevokeUserRightsResponse,
      },
      opts,
    );
  }

  private userPath(userId: string, suffix: string): string {
    if (!userId) throw invalidArgument('user id must not be empty');
    return `/v2/users/${encodeURIComponent(userId)}${suffix}`;
  }
}

const EMPTY_FIELDS = { fields: {} };
