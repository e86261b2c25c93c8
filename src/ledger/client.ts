/**
 * `LedgerClient`: one typed method per JSON Ledger API v2 endpoint Quill uses. Each request body is parsed
 * with its schema (normalising numeric strings and proto defaults) and checked against INTERFACE.md's rules
 * before sending; each response is validated. Every failure is a `LedgerError`.
 */
import type { z } from 'zod';
import { LedgerAdminClient } from './client-admin.ts';
import type { LedgerClientOptions } from './client-base.ts';
import type { CallOptions } from './http.ts';
import { iterateUpdates, type UpdateRange, vettedPackagesPages } from './paging.ts';
import {
  checkGetUpdatesRequest,
  checkTransactionByIdRequest,
  checkTransactionByOffsetRequest,
  checkUpdateByOffset,
} from './rules.ts';
import * as S from './schemas/index.ts';

export type { CallOptions, LedgerClientOptions };

/** Query parameters of the list endpoints (`/v2/updates`, `/v2/updates/flats`). */
export interface StreamOptions extends CallOptions {
  /** Maximum number of elements; keep it ≤ 200 (the participant answers 413 above its list limit). */
  limit?: number;
  /** For open-ended ranges: complete when no element arrives for this long. */
  streamIdleTimeoutMs?: number;
}

type In<T extends z.ZodType> = z.input<T>;

export class LedgerClient extends LedgerAdminClient {
  // --- package vetting -----------------------------------------------------------------------------

  async listVettedPackages(
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
  async updatesFlats(
    body: In<typeof S.GetUpdatesRequest>,
    opts: StreamOptions = {},
  ): Promise<S.JsGetUpdatesResponse[]> {
    return this.updatesAt('/v2/updates/flats', body, opts);
  }

  /** `POST /v2/updates`. */
  async updates(
    body: In<typeof S.GetUpdatesRequest>,
    opts: StreamOptions = {},
  ): Promise<S.JsGetUpdatesResponse[]> {
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

  async transactionByOffset(
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

  async transactionById(
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

  async updateByOffset(
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

  async updateById(
    body: In<typeof S.GetUpdateByIdRequest>,
    opts?: CallOptions,
  ): Promise<S.JsGetUpdateResponse> {
    const what = 'POST /v2/updates/update-by-id';
    const req = this.body(S.GetUpdateByIdRequest, body, what);
    if (!req.updateId) this.check('updateId must not be empty', what);
    return this.call(
      { method: 'POST', path: '/v2/updates/update-by-id', body: req, response: S.JsGetUpdateResponse },
      opts,
    );
  }

  async eventsByContractId(
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

  async prepare(
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

  async execute(
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

  async executeAndWait(
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

  async executeAndWaitForTransaction(
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
}
