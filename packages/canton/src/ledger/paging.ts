/**
 * Paging helpers over the list endpoints. Memory stays bounded by one page whatever the range size.
 *
 * Updates: each page asks for at most `pageSize` elements of `(beginExclusive, endInclusive]` (ascending)
 * and the next page starts after the last offset seen; descending pages move `endInclusive` down. The
 * boundary offset is asked for again and elements already yielded there are skipped, because an
 * OffsetCheckpoint may share its offset with the update before it — moving strictly past the last
 * element could otherwise lose an update at that offset. A page shorter than `pageSize` ends the range
 * (the participant completes a bounded stream once it has produced everything). A page that re-asks for
 * the boundary asks for as many more elements as were already seen there, so it always makes progress.
 */
import type { z } from 'zod';
import { invalidArgument, LedgerError } from './errors.ts';
import type { CallOptions, StreamOptions } from './http.ts';
import {
  type GetUpdatesRequest,
  type JsGetUpdatesResponse,
  type ListVettedPackagesRequest,
  type ListVettedPackagesResponse,
  type Update,
  updateOffset,
} from './schemas/index.ts';

/** The participant's default `http-list-max-elements-limit`; larger pages risk a 413. */
export const MAX_UPDATES_PAGE = 200;

export interface UpdateRange {
  beginExclusive: number;
  /** Defaults to the ledger end at the start of the iteration. Required for descending order. */
  endInclusive?: number;
  descendingOrder?: boolean;
  /** 1..200, default 100. */
  pageSize?: number;
  updateFormat?: z.input<typeof GetUpdatesRequest>['updateFormat'];
  /** Legacy alternative to `updateFormat`. */
  filter?: z.input<typeof GetUpdatesRequest>['filter'];
  verbose?: boolean;
  /** Which list endpoint to page over (default `flats`, the one INTERFACE.md names). */
  endpoint?: 'flats' | 'updates';
}

interface UpdatesSource {
  updatesFlats(
    body: z.input<typeof GetUpdatesRequest>,
    opts?: StreamOptions,
  ): Promise<JsGetUpdatesResponse[]>;
  updates(body: z.input<typeof GetUpdatesRequest>, opts?: StreamOptions): Promise<JsGetUpdatesResponse[]>;
  ledgerEndOffset(opts?: CallOptions): Promise<number>;
}

interface VettingSource {
  listVettedPackages(
    body: z.input<typeof ListVettedPackagesRequest>,
    opts?: CallOptions,
  ): Promise<ListVettedPackagesResponse>;
}

function updateKey(update: Update): string {
  return JSON.stringify(update);
}

export async function* iterateUpdates(
  source: UpdatesSource,
  range: UpdateRange,
  opts: CallOptions = {},
): AsyncGenerator<Update> {
  const pageSize = range.pageSize ?? 100;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_UPDATES_PAGE) {
    throw invalidArgument(`iterateUpdates: pageSize must be 1..${MAX_UPDATES_PAGE}`);
  }
  if (!Number.isSafeInteger(range.beginExclusive) || range.beginExclusive < 0) {
    throw invalidArgument('iterateUpdates: beginExclusive must be a non-negative integer');
  }
  if (range.descendingOrder && range.endInclusive === undefined) {
    throw invalidArgument('iterateUpdates: descendingOrder requires endInclusive');
  }
  const descending = range.descendingOrder === true;
  const end = range.endInclusive ?? (await source.ledgerEndOffset(opts));
  let low = range.beginExclusive; // exclusive
  let high = end; // inclusive
  let boundary: { offset: number; seen: Set<string> } | undefined;
  const fetchPage =
    range.endpoint === 'updates' ? source.updates.bind(source) : source.updatesFlats.bind(source);

  while (low < high) {
    const body: z.input<typeof GetUpdatesRequest> = { beginExclusive: low, endInclusive: high };
    if (descending) body.descendingOrder = true;
    if (range.updateFormat !== undefined) body.updateFormat = range.updateFormat;
    if (range.filter !== undefined) body.filter = range.filter;
    if (range.verbose !== undefined) body.verbose = range.verbose;
    // Re-asking for the boundary offset costs the elements already seen there: ask for that many more.
    const limit = Math.min(MAX_UPDATES_PAGE, pageSize + (boundary?.seen.size ?? 0));
    const page = await fetchPage(body, { ...opts, limit });
    let fresh = 0;
    let last: number | undefined;
    const atLast = new Set<string>();
    for (const element of page) {
      const update = element.update;
      if (update == null) continue;
      const offset = updateOffset(update);
      if (offset <= low || offset > high) {
        throw new LedgerError({
          code: 'INVALID_RESPONSE',
          message: `iterateUpdates: the participant returned offset ${offset} outside (${low}, ${high}]`,
        });
      }
      const key = updateKey(update);
      if (offset !== last) atLast.clear();
      last = offset;
      atLast.add(key);
      if (boundary && boundary.offset === offset && boundary.seen.has(key)) continue;
      fresh++;
      yield update;
    }
    if (page.length < limit || last === undefined) return;
    if (fresh === 0) {
      // Only possible with more than MAX_UPDATES_PAGE updates at one offset: step strictly past it.
      if (descending) high = last - 1;
      else low = last;
      boundary = undefined;
      continue;
    }
    const carried = boundary && boundary.offset === last ? boundary.seen : undefined;
    boundary = { offset: last, seen: carried ? new Set([...carried, ...atLast]) : atLast };
    // Ask for the boundary offset again (see the header comment).
    if (descending) high = last;
    else low = last - 1;
  }
}

/** Every page of the vetted-package listing until `nextPageToken` is empty. */
export async function* vettedPackagesPages(
  source: VettingSource,
  body: Omit<z.input<typeof ListVettedPackagesRequest>, 'pageToken'>,
  opts: CallOptions = {},
): AsyncGenerator<ListVettedPackagesResponse> {
  let pageToken = '';
  const seen = new Set<string>();
  for (;;) {
    const page = await source.listVettedPackages({ ...body, pageToken }, opts);
    yield page;
    const next = page.nextPageToken ?? '';
    if (next === '') return;
    if (seen.has(next)) {
      throw new LedgerError({
        code: 'INVALID_RESPONSE',
        message: 'vettedPackagesPages: the participant repeated a page token',
      });
    }
    seen.add(next);
    pageToken = next;
  }
}
