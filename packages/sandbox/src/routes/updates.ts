/**
 * Update reading: `/v2/updates(/flats)` as a bounded JSON list (limit, server list maximum → 413, idle
 * timeout for open-ended ranges, descending order only with endInclusive, pruning, legacy filter/verbose vs
 * updateFormat, OffsetCheckpoints in open-ended streams only), transaction-by-offset/-id, update-by-offset/-id,
 * and events-by-contract-id. Point lookups do no pruning check (`UpdatePointwiseReader.lookupUpdateBy`; pruning
 * deletes the update's meta row): a pruned offset or update id is 404 UPDATE_NOT_FOUND. An empty `updateFormat`
 * is valid and shows nothing (`IndexServiceImpl.memoizedInternalUpdateFormat` → None): `[]`, or 404.
 */
import {
  endpoints as E,
  type EventFormat,
  type GetTransactionByIdRequest,
  type GetUpdatesRequest,
  type StreamQuery,
  type TransactionFilter,
  wildcardEventFormat,
} from '@quill/canton/ledger';
import { type Caller, requireReadAs } from '../auth.ts';
import { err, SandboxError } from '../errors.ts';
import { checkKnownIdentifiers, eventFormatsOf } from '../identifiers.ts';
import {
  type Format,
  formatOf,
  readerOf,
  renderContractEvents,
  renderTransaction,
  renderTransactionTree,
  renderUpdate,
  renderUpdateTree,
  transactionFormatOf,
} from '../render.ts';
import type { SandboxState } from '../state/index.ts';
import { type App, type Ctx, caller, type Request, type Services, serve } from './http.ts';
import { type OpenStream, type StreamForm, type StreamForms, streamUpdates } from './stream.ts';

/** The updateFormat the participant builds from the legacy filter and verbose fields (INTERFACE.md §4.2). */
function legacyFormat(filter: TransactionFilter, verbose: boolean): Format {
  const eventFormat: EventFormat = { ...filter, verbose };
  const parties = Object.keys(filter.filtersByParty ?? {});
  return formatOf({
    includeTransactions: { eventFormat, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
    includeReassignments: eventFormat,
    includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties } },
  });
}

/** Reads of a format need read rights for every named party (any-party filters: CanReadAsAnyParty). */
function authorizeFormat(who: Caller, f: Format): void {
  for (const r of [f.transactions?.reader, f.reassignments]) {
    if (r) requireReadAs(who, [...r.byParty.keys()], r.anyParty !== undefined);
  }
  if (f.topology)
    requireReadAs(
      who,
      f.topology.parties === 'all' ? [] : [...f.topology.parties],
      f.topology.parties === 'all',
    );
}

/** The format a transaction lookup asks for (its rule already checked that exactly one form is used). */
function transactionFormatFrom(
  req: Pick<GetTransactionByIdRequest, 'requestingParties' | 'transactionFormat'>,
) {
  const tf = req.transactionFormat ?? {
    eventFormat: wildcardEventFormat(req.requestingParties ?? [], true),
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' as const,
  };
  return transactionFormatOf(tf)!;
}

/**
 * `UpdateServiceRequestValidator.validate` checks the offsets against the ledger end right after their syntax,
 * before the format and before `IndexServiceImpl.between` compares end with begin (OFFSET_OUT_OF_RANGE): a
 * begin past the ledger end is OFFSET_AFTER_LEDGER_END whatever the end. Runs before the endpoint's rule, only
 * when the syntax checks the rule starts with pass.
 */
function checkLedgerEnd(
  state: SandboxState,
  body: { beginExclusive: number; endInclusive?: number | null; descendingOrder?: boolean | null },
): void {
  const begin = body.beginExclusive;
  const end = body.endInclusive ?? undefined;
  if (begin < 0 || (end !== undefined && end <= 0) || (body.descendingOrder && end === undefined)) return;
  const ledgerEnd = state.log.end;
  if (begin > ledgerEnd) throw err.offsetAfterLedgerEnd('Begin', begin, ledgerEnd);
  if (end !== undefined && end > ledgerEnd) throw err.offsetAfterLedgerEnd('End', end, ledgerEnd);
}

export function updateRoutes(app: App, services: Services, streams: StreamForms = new Map()): void {
  const { state } = services;

  /** The range checks of a list request against the pruning offset (the ledger end was checked first). */
  const checkRange = (body: { beginExclusive: number; endInclusive?: number | null }) => {
    const begin = body.beginExclusive;
    const end = body.endInclusive ?? undefined;
    const ledgerEnd = state.log.end;
    if (begin < state.log.prunedUpTo) {
      throw err.pruned(
        `Updates request from ${begin + 1} to ${end ?? ledgerEnd} precedes pruned offset ${state.log.prunedUpTo}`,
        state.log.prunedUpTo,
      );
    }
    return { begin, end };
  };

  const wrap = (update: unknown) => ({ update });
  /** `/v2/updates` and `/v2/updates/flats`, after the rule: the range, the rights, the identifiers. */
  const openUpdates = (who: Caller, body: GetUpdatesRequest): OpenStream => {
    const format = body.updateFormat
      ? formatOf(body.updateFormat)
      : legacyFormat(body.filter!, body.verbose ?? false);
    const { begin, end } = checkRange(body);
    authorizeFormat(who, format);
    checkKnownIdentifiers(
      state.packages,
      body.updateFormat ? eventFormatsOf(body.updateFormat) : [body.filter!],
    );
    const range = { begin, end, descending: body.descendingOrder === true };
    return { render: (rec) => renderUpdate(rec, format), range, wrap };
  };
  // The deprecated tree form (INTERFACE.md 4.2): the legacy filter as LEDGER_EFFECTS, with reassignments.
  const openTrees = (who: Caller, body: GetUpdatesRequest): OpenStream => {
    const reader = readerOf({ ...body.filter, verbose: body.verbose ?? false }); // the rule required the filter
    const { begin, end } = checkRange(body);
    requireReadAs(who, [...reader.byParty.keys()], reader.anyParty !== undefined);
    const range = { begin, end, descending: body.descendingOrder === true };
    return { render: (rec) => renderUpdateTree(rec, reader), range, wrap };
  };

  const precheck = (body: GetUpdatesRequest) => checkLedgerEnd(state, body);
  const forms: StreamForm<typeof GetUpdatesRequest>[] = [
    { endpoint: E.updatesFlats, precheck, open: openUpdates },
    { endpoint: E.updates, precheck, open: openUpdates },
    { endpoint: E.updatesTrees, precheck, open: openTrees },
  ];
  for (const form of forms) {
    streams.set(form.endpoint.path, form as StreamForm);
    const list = async (
      c: Ctx,
      { body, query }: Request<string, typeof GetUpdatesRequest, typeof StreamQuery>,
    ) => {
      // Endpoints.asList takes min(limit, max + 1) elements: a limit ≤ 0 takes none and answers [] at once.
      if (query.limit != null && query.limit <= 0) return c.json([]);
      const { render, range } = form.open(caller(c), body);
      const out = await streamUpdates(services, render, {
        ...range,
        limit: query.limit ?? undefined,
        idleMs: query.stream_idle_timeout_ms ?? services.options.listWaitMs,
      });
      return c.json(out.map(wrap));
    };
    serve(app, form.endpoint as typeof E.updates, list, { precheck: (_c, r) => precheck(r.body) });
  }

  const treeLookup = (
    c: Ctx,
    offset: number | undefined,
    parties: readonly string[],
    key: ['OFFSET' | 'UPDATE_ID', string],
  ) => {
    const reader = readerOf(wildcardEventFormat(parties, true));
    requireReadAs(caller(c), parties);
    const rec = offset === undefined ? undefined : state.log.at(offset);
    const tree = rec?.kind === 'transaction' ? renderTransactionTree(rec, reader) : undefined;
    if (!tree) throw err.updateNotFound(key[0], key[1]);
    return c.json({ transaction: tree });
  };

  serve(app, E.transactionTreeByOffset, (c, { params, query }) => {
    const offset = Number(params.offset);
    return treeLookup(c, offset, query.parties ?? [], ['OFFSET', params.offset]);
  });

  serve(app, E.transactionTreeById, (c, { params, query }) =>
    treeLookup(c, state.log.offsetOf(params['update-id']), query.parties ?? [], [
      'UPDATE_ID',
      params['update-id'],
    ]),
  );

  serve(app, E.transactionByOffset, (c, { body }) => {
    const f = transactionFormatFrom(body);
    authorizeFormat(caller(c), { transactions: f });
    checkKnownIdentifiers(state.packages, body.transactionFormat ? [body.transactionFormat.eventFormat] : []);
    const rec = state.log.at(body.offset);
    const tx = rec?.kind === 'transaction' ? renderTransaction(rec, f) : undefined;
    if (!tx) throw err.updateNotFound('OFFSET', String(body.offset));
    return c.json({ transaction: tx });
  });

  serve(app, E.transactionById, (c, { body }) => {
    const f = transactionFormatFrom(body);
    authorizeFormat(caller(c), { transactions: f });
    checkKnownIdentifiers(state.packages, body.transactionFormat ? [body.transactionFormat.eventFormat] : []);
    const offset = state.log.offsetOf(body.updateId);
    const rec = offset === undefined ? undefined : state.log.at(offset);
    const tx = rec?.kind === 'transaction' ? renderTransaction(rec, f) : undefined;
    if (!tx) throw err.updateNotFound('UPDATE_ID', body.updateId);
    return c.json({ transaction: tx });
  });

  serve(app, E.updateByOffset, (c, { body }) => {
    const f = formatOf(body.updateFormat!); // the rule refused a missing one
    authorizeFormat(caller(c), f);
    checkKnownIdentifiers(state.packages, eventFormatsOf(body.updateFormat!));
    const rec = state.log.at(body.offset);
    const update = rec ? renderUpdate(rec, f) : undefined;
    if (!update) throw err.updateNotFound('OFFSET', String(body.offset));
    return c.json({ update });
  });

  serve(app, E.updateById, (c, { body }) => {
    const f = formatOf(body.updateFormat!); // the rule refused a missing one
    authorizeFormat(caller(c), f);
    checkKnownIdentifiers(state.packages, eventFormatsOf(body.updateFormat!));
    const offset = state.log.offsetOf(body.updateId);
    const rec = offset === undefined ? undefined : state.log.at(offset);
    const update = rec ? renderUpdate(rec, f) : undefined;
    if (!update) throw err.updateNotFound('UPDATE_ID', body.updateId);
    return c.json({ update });
  });

  serve(app, E.eventsByContractId, (c, { body }) => {
    const reader = readerOf(body.eventFormat);
    requireReadAs(caller(c), [...reader.byParty.keys()], reader.anyParty !== undefined);
    checkKnownIdentifiers(state.packages, [body.eventFormat]);
    const contract = state.contracts.get(body.contractId);
    const events = contract ? renderContractEvents(contract, reader) : undefined;
    if (!events) {
      throw new SandboxError(
        'CONTRACT_EVENTS_NOT_FOUND',
        11,
        'Contract events not found, or not visible.',
        {},
        [['CONTRACT_ID', body.contractId]],
      );
    }
    return c.json(events);
  });
}
