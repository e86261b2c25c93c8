/**
 * Filters and formats (requests). These are proto-generated types read with the relaxed codec, so every
 * field the proto would default is optional here (ledger-json-api.md §1.6); the spec requires only
 * `TransactionFormat.eventFormat` / `transactionShape`, which the client always sends.
 */
import { z } from 'zod';
import { opt, variant } from './common.ts';
import { TransactionShape } from './enums.ts';

const Flag = opt(z.boolean());

export const WildcardFilter1 = z.object({ includeCreatedEventBlob: Flag });
export type WildcardFilter1 = z.infer<typeof WildcardFilter1>;
export const WildcardFilter = z.object({ value: WildcardFilter1 });
export type WildcardFilter = z.infer<typeof WildcardFilter>;

export const TemplateFilter1 = z.object({ templateId: z.string(), includeCreatedEventBlob: Flag });
export type TemplateFilter1 = z.infer<typeof TemplateFilter1>;
export const TemplateFilter = z.object({ value: TemplateFilter1 });
export type TemplateFilter = z.infer<typeof TemplateFilter>;

export const InterfaceFilter1 = z.object({
  interfaceId: z.string(),
  includeInterfaceView: Flag,
  includeCreatedEventBlob: Flag,
});
export type InterfaceFilter1 = z.infer<typeof InterfaceFilter1>;
export const InterfaceFilter = z.object({ value: InterfaceFilter1 });
export type InterfaceFilter = z.infer<typeof InterfaceFilter>;

/** `{"Empty":{}}` selects all templates (template wildcard) like `WildcardFilter`. */
export const IdentifierFilter = z.union([
  variant('Empty', z.object({})),
  variant('InterfaceFilter', InterfaceFilter),
  variant('TemplateFilter', TemplateFilter),
  variant('WildcardFilter', WildcardFilter),
]);
export type IdentifierFilter = z.infer<typeof IdentifierFilter>;

export const CumulativeFilter = z.object({ identifierFilter: opt(IdentifierFilter) });
export type CumulativeFilter = z.infer<typeof CumulativeFilter>;

export const Filters = z.object({ cumulative: opt(z.array(CumulativeFilter)) });
export type Filters = z.infer<typeof Filters>;

/** Party id → filters. */
export const Map_Filters = z.record(z.string(), Filters);
export type Map_Filters = z.infer<typeof Map_Filters>;

export const EventFormat = z.object({
  filtersByParty: opt(Map_Filters),
  filtersForAnyParty: opt(Filters),
  verbose: Flag,
});
export type EventFormat = z.infer<typeof EventFormat>;

export const TransactionFormat = z.object({ eventFormat: EventFormat, transactionShape: TransactionShape });
export type TransactionFormat = z.infer<typeof TransactionFormat>;

export const ParticipantAuthorizationTopologyFormat = z.object({ parties: opt(z.array(z.string())) });
export type ParticipantAuthorizationTopologyFormat = z.infer<typeof ParticipantAuthorizationTopologyFormat>;

export const TopologyFormat = z.object({
  includeParticipantAuthorizationEvents: opt(ParticipantAuthorizationTopologyFormat),
});
export type TopologyFormat = z.infer<typeof TopologyFormat>;

/**
 * Unset members exclude that kind of update. All three unset is valid and selects nothing: streams answer `[]`,
 * lookups 404 `UPDATE_NOT_FOUND` (canton 3.5 `FormatValidator`, `IndexServiceImpl.memoizedInternalUpdateFormat`).
 */
export const UpdateFormat = z.object({
  includeTransactions: opt(TransactionFormat),
  includeReassignments: opt(EventFormat),
  includeTopologyEvents: opt(TopologyFormat),
});
export type UpdateFormat = z.infer<typeof UpdateFormat>;

/** Legacy filter of the deprecated request forms (removed in 3.6). */
export const TransactionFilter = z.object({
  filtersByParty: opt(Map_Filters),
  filtersForAnyParty: opt(Filters),
});
export type TransactionFilter = z.infer<typeof TransactionFilter>;

/** A template-wildcard event format for `parties` (what the participant builds from `requestingParties`). */
export function wildcardEventFormat(parties: readonly string[], verbose = true): EventFormat {
  const filtersByParty: Map_Filters = {};
  for (const party of parties) {
    filtersByParty[party] = {
      cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }],
    };
  }
  return { filtersByParty, verbose };
}
