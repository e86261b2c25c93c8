/**
 * `ScanClient`: the activity feed (`POST {scanUrl}/v0/activities`; on a real scan `scanUrl` ends in
 * `/api/scan`). Errors are `LedgerError`s like the ledger client's: the feed's `{ "error": string }` body
 * becomes `code = HTTP_<status>` with that text as the message; 429 and 503 are retryable. The feed is
 * read-only, so no failure leaves an unknown outcome.
 */
import type { z } from 'zod';
import { type CallOptions, type HttpClientOptions, HttpTransport } from '../ledger/http.ts';
import { formatIssues, invalidArgument, LedgerError, oneLine } from '../ledger/index.ts';
import {
  checkListActivityRequest,
  ErrorResponse,
  ListActivityRequest,
  type ListActivityResponse,
  type ListActivityResponseItem,
  ListActivityResponse as ListActivityResponseSchema,
} from './schemas.ts';

export type ScanClientOptions = HttpClientOptions;

function mapScanError(status: number, json: unknown): LedgerError | undefined {
  const body = ErrorResponse.safeParse(json);
  if (!body.success) return undefined;
  return new LedgerError({
    status,
    code: `HTTP_${status}`,
    message: `scan ${status}: ${oneLine(body.data.error)}`,
    retryable: status === 429 || status === 503,
    definiteAnswer: true,
  });
}

export class ScanClient {
  private readonly http: HttpTransport;

  constructor(opts: ScanClientOptions) {
    this.http = new HttpTransport(opts, mapScanError);
  }

  /**
   * One page in the feed's order: newest first on the deployed scan (an opaque exclusive cursor), oldest first
   * with ids greater than `begin_after_id` on the sandbox (INTERFACE.md 4.8). `page_size` must be 1..1000
   * (checked before sending).
   */
  async listActivities(
    body: z.input<typeof ListActivityRequest>,
    opts?: CallOptions,
  ): Promise<ListActivityResponse> {
    const parsed = ListActivityRequest.safeParse(body);
    if (!parsed.success) throw invalidArgument(`POST /v0/activities: ${formatIssues(parsed.error)}`);
    const problem = checkListActivityRequest(parsed.data);
    if (problem) throw invalidArgument(`POST /v0/activities: ${problem}`);
    const wire: ListActivityRequest = { page_size: parsed.data.page_size };
    if (parsed.data.begin_after_id) wire.begin_after_id = parsed.data.begin_after_id;
    return this.http.call(
      { method: 'POST', path: '/v0/activities', body: wire, response: ListActivityResponseSchema },
      opts,
    );
  }

  /**
   * Every activity after `beginAfterId` (exclusive; default: the start of the feed), one page at a time, each
   * page's last id the next cursor: on the deployed scan that walks from the newest back to the oldest, on an
   * INTERFACE.md feed (the sandbox) from the oldest forward. Stops on an empty page (a short page is not the
   * end, as upstream's own UI pages).
   */
  async *iterateActivities(
    params: { pageSize?: number; beginAfterId?: string } = {},
    opts?: CallOptions,
  ): AsyncGenerator<ListActivityResponseItem> {
    const pageSize = params.pageSize ?? 100;
    let cursor = params.beginAfterId ?? '';
    for (;;) {
      const page = await this.listActivities({ page_size: pageSize, begin_after_id: cursor || null }, opts);
      const last = page.activities.at(-1);
      if (!last) return;
      yield* page.activities;
      // The cursor must move (a server echoing the cursor would loop forever).
      if (last.event_id === cursor) {
        throw new LedgerError({
          code: 'INVALID_RESPONSE',
          message: 'iterateActivities: the feed returned the cursor it was given',
        });
      }
      cursor = last.event_id;
    }
  }
}
