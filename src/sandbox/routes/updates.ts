/**
 * Update reading: `/v2/updates(/flats)` as a bounded JSON list (limit, server list maximum → 413, idle
 * timeout for open-ended ranges, descending order only with endInclusive, pruning, legacy filter/verbose vs
 * updateFormat, periodic OffsetCheckpoints), transaction-by-offset/-id, update-by-offset/-id, and
 * events-by-contract-id.
 */
import {
  type EventFormat,
  GetEventsByContractIdRequest,
  GetTransactionByIdRequest,
  GetTransactionByOffsetRequest,
  GetUpdateByIdRequest,
  GetUpdateByOffsetRequest,
  GetUpdatesRequest,
  StreamQuery,
  type TransactionFilter,
  type TransactionFormat,
  type UpdateFormat,
  wildcardEventFormat,
} from '../../ledger/index.ts';
import { type Caller, requireReadAs } from '../auth.ts';
import { BodyDecodeError, err, SandboxError } from '../errors.ts';
import {
  type Format,
  formatOf,
  readerOf,
  renderContractEvents,
  renderTransaction,
  renderUpdate,
  transactionFormatOf,
} from '../render.ts';
import type { SandboxState } from '../state/index.ts';
import { type App, type Ctx, caller, readJson, type Services } from './http.ts';
import { streamUpdates } from './stream.ts';

const BOTH =
  'Please use either backwards compatible arguments (filter and verbose) or update_format, but not both.';

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
export function authorizeFormat(who: Caller, f: Format): void {
  const r = f.transactions?.reader;
  if (r) requireReadAs(who, [...r.byParty.keys()], r.anyParty !== undefined);
  if (f.topology)
    requireReadAs(
      who,
      f.topology.parties === 'all' ? [] : [...f.topology.parties],
      f.topology.parties === 'all',
    );
}

function checkUpdateFormat(u: UpdateFormat): void {
  if (!u.includeTransactions && !u.includeReassignments && !u.includeTopologyEvents) {
    throw err.invalidArgument(
      'The update format must specify at least one of include_transactions, include_reassignments or include_topology_events',
    );
  }
}

function transactionFormatFrom(
  parties: string[] | null | undefined,
  tf: TransactionFormat | null | undefined,
) {
  const requesting = parties ?? [];
  if (requesting.length > 0 && tf) {
    throw err.invalidArgument(
      'Both transaction_format and requesting_parties are set. Please use either backwards compatible arguments (requesting_parties) or transaction_format but not both.',
    );
  }
  if (tf) return transactionFormatOf(tf)!;
  if (requesting.length === 0) {
    throw err.invalidArgument(
      'Either transaction_format or requesting_parties is required. Please use either backwards compatible arguments (requesting_parties) or transaction_format.',
    );
  }
  return transactionFormatOf({
    eventFormat: wildcardEventFormat(requesting, true),
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
  })!;
}

function checkPointOffset(state: SandboxState, offset: number): void {
  if (offset <= 0) throw err.nonPositiveOffset('offset', offset);
  if (offset <= state.log.prunedUpTo) {
    throw err.pruned(
      `Transactions request from ${offset} to ${offset} precedes pruned offset ${state.log.prunedUpTo}`,
      state.log.prunedUpTo,
    );
  }
}

function query(c: Ctx) {
  const parsed = StreamQuery.safeParse({
    limit: c.req.query('limit'),
    stream_idle_timeout_ms: c.req.query('stream_idle_timeout_ms'),
  });
  if (!parsed.success)
    throw new BodyDecodeError('Invalid value for: query parameter limit or stream_idle_timeout_ms');
  return parsed.data;
}

export function updateRoutes(app: App, services: Services): void {
  const { state } = services;

  const flats = async (c: Ctx) => {
    const q = query(c);
    const body = await readJson(c, GetUpdatesRequest);
    if (body.updateFormat && body.filter)
      throw err.invalidArgument(`Both update_format and filter are set. ${BOTH}`);
    if (body.updateFormat && body.verbose === true)
      throw err.invalidArgument(`Both update_format and verbose are set. ${BOTH}`);
    if (!body.updateFormat && !body.filter) {
      throw err.invalidArgument(
        'Either filter/verbose or update_format is required. Please use either backwards compatible arguments (filter and verbose) or update_format.',
      );
    }
    if (body.updateFormat) checkUpdateFormat(body.updateFormat);
    const format = body.updateFormat
      ? formatOf(body.updateFormat)
      : legacyFormat(body.filter!, body.verbose ?? false);
    const begin = body.beginExclusive;
    const end = body.endInclusive ?? undefined;
    if (begin < 0) throw err.negativeOffset('begin_exclusive', begin);
    if (end !== undefined && end < 0) throw err.negativeOffset('end_inclusive', end);
    if (body.descendingOrder && end === undefined) {
      throw err.invalidArgument('descending_order requires end_inclusive to be set');
    }
    const ledgerEnd = state.log.end;
    if (begin > ledgerEnd) throw err.offsetAfterLedgerEnd('Begin', begin, ledgerEnd);
    if (end !== undefined && end > ledgerEnd) throw err.offsetAfterLedgerEnd('End', end, ledgerEnd);
    if (end !== undefined && end < begin) {
      throw err.offsetOutOfRange(`Begin offset ${begin} is after end offset ${end}`);
    }
    if (begin < state.log.prunedUpTo) {
      throw err.pruned(
        `Updates request from ${begin + 1} to ${end ?? ledgerEnd} precedes pruned offset ${state.log.prunedUpTo}`,
        state.log.prunedUpTo,
      );
    }
    authorizeFormat(caller(c), format);
    const out = await streamUpdates(services, (rec) => renderUpdate(rec, format), {
      begin,
      end,
      descending: body.descendingOrder === true,
      limit: q.limit ?? undefined,
      idleMs: q.stream_idle_timeout_ms ?? services.options.listWaitMs,
    });
    return c.json(out.map((update) => ({ update })));
  };
  app.post('/v2/updates/flats', flats);
  app.post('/v2/updates', flats);

  app.post('/v2/updates/transaction-by-offset', async (c) => {
    const body = await readJson(c, GetTransactionByOffsetRequest);
    const f = transactionFormatFrom(body.requestingParties, body.transactionFormat);
    authorizeFormat(caller(c), { transactions: f });
    checkPointOffset(state, body.offset);
    const rec = state.log.at(body.offset);
    const tx = rec?.kind === 'transaction' ? renderTransaction(rec, f) : undefined;
    if (!tx) throw err.updateNotFound('OFFSET', String(body.offset));
    return c.json({ transaction: tx });
  });

  app.post('/v2/updates/transaction-by-id', async (c) => {
    const body = await readJson(c, GetTransactionByIdRequest);
    if (body.updateId === '') throw err.missingField('update_id');
    const f = transactionFormatFrom(body.requestingParties, body.transactionFormat);
    authorizeFormat(caller(c), { transactions: f });
    const offset = state.log.offsetOf(body.updateId);
    const rec = offset === undefined ? undefined : state.log.at(offset);
    const tx = rec?.kind === 'transaction' ? renderTransaction(rec, f) : undefined;
    if (!tx) throw err.updateNotFound('UPDATE_ID', body.updateId);
    return c.json({ transaction: tx });
  });

  app.post('/v2/updates/update-by-offset', async (c) => {
    const body = await readJson(c, GetUpdateByOffsetRequest);
    checkUpdateFormat(body.updateFormat);
    const f = formatOf(body.updateFormat);
    authorizeFormat(caller(c), f);
    checkPointOffset(state, body.offset);
    const rec = state.log.at(body.offset);
    const update = rec ? renderUpdate(rec, f) : undefined;
    if (!update) throw err.updateNotFound('OFFSET', String(body.offset));
    return c.json({ update });
  });

  app.post('/v2/updates/update-by-id', async (c) => {
    const body = await readJson(c, GetUpdateByIdRequest);
    if (body.updateId === '') throw err.missingField('update_id');
    checkUpdateFormat(body.updateFormat);
    const f = formatOf(body.updateFormat);
    authorizeFormat(caller(c), f);
    const offset = state.log.offsetOf(body.updateId);
    const rec = offset === undefined ? undefined : state.log.at(offset);
    const update = rec ? renderUpdate(rec, f) : undefined;
    if (!update) throw err.updateNotFound('UPDATE_ID', body.updateId);
    return c.json({ update });
  });

  app.post('/v2/events/events-by-contract-id', async (c) => {
    const body = await readJson(c, GetEventsByContractIdRequest);
    const reader = readerOf(body.eventFormat);
    requireReadAs(caller(c), [...reader.byParty.keys()], reader.anyParty !== undefined);
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
