/**
 * Requests and responses of the update endpoints: `/v2/updates(/flats)`, `transaction-by-offset|id`,
 * `update-by-offset|id`, `/v2/events/events-by-contract-id`. The semantic rules of INTERFACE.md §4
 * (descendingOrder needs endInclusive, legacy fields vs formats, offset signs) live in `../rules.ts`,
 * because the participant reports them as INVALID_ARGUMENT errors, not as body decode failures.
 */
import { z } from 'zod';
import { Int64Input, opt, protoDefault } from './common.ts';
import { JsArchived, JsCreated, JsTransaction, JsTransactionTree, Update, Update1 } from './events.ts';
import { EventFormat, TransactionFilter, TransactionFormat, UpdateFormat } from './formats.ts';

const Parties = z.array(z.string());

/** Body of `POST /v2/updates` and `POST /v2/updates/flats`. */
export const GetUpdatesRequest = z.object({
  beginExclusive: protoDefault(Int64Input, 0),
  endInclusive: opt(Int64Input),
  /** Legacy (removed in 3.6): never together with `updateFormat`. */
  filter: opt(TransactionFilter),
  /** Legacy (removed in 3.6): never together with `updateFormat`. */
  verbose: opt(z.boolean()),
  updateFormat: opt(UpdateFormat),
  /** Requires `endInclusive`. */
  descendingOrder: opt(z.boolean()),
});
export type GetUpdatesRequest = z.infer<typeof GetUpdatesRequest>;

/** Query parameters of the list endpoints (`limit`, `stream_idle_timeout_ms`). */
export const StreamQuery = z.object({
  limit: opt(Int64Input),
  stream_idle_timeout_ms: opt(Int64Input),
});
export type StreamQuery = z.infer<typeof StreamQuery>;

export const GetTransactionByOffsetRequest = z.object({
  offset: protoDefault(Int64Input, 0),
  /** Legacy: exactly one of `requestingParties` / `transactionFormat`. */
  requestingParties: opt(Parties),
  transactionFormat: opt(TransactionFormat),
});
export type GetTransactionByOffsetRequest = z.infer<typeof GetTransactionByOffsetRequest>;

export const GetTransactionByIdRequest = z.object({
  updateId: protoDefault(z.string(), ''),
  requestingParties: opt(Parties),
  transactionFormat: opt(TransactionFormat),
});
export type GetTransactionByIdRequest = z.infer<typeof GetTransactionByIdRequest>;

export const GetUpdateByOffsetRequest = z.object({
  offset: protoDefault(Int64Input, 0),
  /** Required: optional here so that its absence is the participant's MISSING_FIELD, not a decode failure. */
  updateFormat: opt(UpdateFormat),
});
export type GetUpdateByOffsetRequest = z.infer<typeof GetUpdateByOffsetRequest>;

export const GetUpdateByIdRequest = z.object({
  updateId: protoDefault(z.string(), ''),
  /** Required: optional here so that its absence is the participant's MISSING_FIELD, not a decode failure. */
  updateFormat: opt(UpdateFormat),
});
export type GetUpdateByIdRequest = z.infer<typeof GetUpdateByIdRequest>;

export const GetEventsByContractIdRequest = z.object({
  contractId: z.string(),
  eventFormat: EventFormat,
});
export type GetEventsByContractIdRequest = z.infer<typeof GetEventsByContractIdRequest>;

/** The deprecated tree lookups (`GET .../transaction-tree-by-{offset,id}/...?parties=a&parties=b`). */
export const TreeLookupQuery = z.object({
  parties: opt(z.union([z.string(), z.array(z.string())]).transform((p) => (Array.isArray(p) ? p : [p]))),
});
export type TreeLookupQuery = z.infer<typeof TreeLookupQuery>;

export const JsGetTransactionTreeResponse = z.object({ transaction: JsTransactionTree });
export type JsGetTransactionTreeResponse = z.infer<typeof JsGetTransactionTreeResponse>;

export const JsGetUpdateTreesResponse = z.object({ update: opt(Update1) });
export type JsGetUpdateTreesResponse = z.infer<typeof JsGetUpdateTreesResponse>;
export const JsGetUpdateTreesResponseList = z.array(JsGetUpdateTreesResponse);

/** One element of the JSON array returned by `/v2/updates(/flats)`. */
export const JsGetUpdatesResponse = z.object({ update: opt(Update) });
export type JsGetUpdatesResponse = z.infer<typeof JsGetUpdatesResponse>;
export const JsGetUpdatesResponseList = z.array(JsGetUpdatesResponse);

export const JsGetUpdateResponse = z.object({ update: opt(Update) });
export type JsGetUpdateResponse = z.infer<typeof JsGetUpdateResponse>;

export const JsGetTransactionResponse = z.object({ transaction: JsTransaction });
export type JsGetTransactionResponse = z.infer<typeof JsGetTransactionResponse>;

export const JsGetEventsByContractIdResponse = z.object({
  created: opt(JsCreated),
  archived: opt(JsArchived),
});
export type JsGetEventsByContractIdResponse = z.infer<typeof JsGetEventsByContractIdResponse>;
