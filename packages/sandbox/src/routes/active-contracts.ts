/**
 * `POST /v2/state/active-contracts` as a bounded JSON list: the contracts active at `activeAtOffset` (created at or
 * before it, not archived by it), in creation order, as the event format's parties see them — template, wildcard
 * and interface filters (an InterfaceFilter matches every implementing template; views as requested). Offset 0 is the
 * empty set; beyond the ledger end OFFSET_AFTER_LEDGER_END; below the pruning offset PARTICIPANT_PRUNED_DATA_ACCESSED
 * (StateServiceRequestValidator, IndexServiceImpl.getActiveContracts). Contracts in the middle of a reassignment
 * (incomplete unassignments) are left out.
 */
import { endpoints as E, type EventFormat } from '@quill/canton/ledger';
import { requireReadAs } from '../auth.ts';
import { err, SandboxError } from '../errors.ts';
import { checkKnownIdentifiers } from '../identifiers.ts';
import { readerOf, renderActiveContract } from '../render.ts';
import { type App, caller, type Services, serve } from './http.ts';

export function activeContractRoutes(app: App, { state, options }: Services): void {
  serve(
    app,
    E.activeContracts,
    (c, { body, query }) => {
      const format: EventFormat = body.eventFormat ?? { ...body.filter!, verbose: body.verbose ?? false };
      const reader = readerOf(format);
      requireReadAs(caller(c), [...reader.byParty.keys()], reader.anyParty !== undefined);
      checkKnownIdentifiers(state.packages, [format]);
      const at = body.activeAtOffset;
      if (at < state.log.prunedUpTo)
        throw err.pruned(
          `Active contracts request at offset ${at} precedes pruned offset ${state.log.prunedUpTo}`,
          state.log.prunedUpTo,
        );
      if (query.limit != null && query.limit <= 0) return c.json([]);
      const max = options.maxListElements;
      const take = Math.min(query.limit ?? max + 1, max + 1);
      const out: unknown[] = [];
      if (at > 0) {
        const active = [...state.contracts.values()]
          .filter(
            (x) =>
              x.createdOffset > 0 &&
              x.createdOffset <= at &&
              (x.archivedOffset === undefined || x.archivedOffset > at) &&
              x.unassigned === undefined,
          )
          .sort((a, b) => a.createdOffset - b.createdOffset || a.createdNodeId - b.createdNodeId);
        for (const x of active) {
          if (out.length >= take) break;
          const entry = renderActiveContract(x, reader);
          if (entry) out.push(entry);
        }
      }
      if (out.length > max) throw err.listTooLarge(max);
      return c.json(out);
    },
    {
      // ParticipantOffsetValidator.validateNonNegative and the ledger end come before the format's checks.
      precheck: (_c, { body }) => {
        const at = body.activeAtOffset;
        if (at >= 0 && at > state.log.end)
          throw new SandboxError(
            'OFFSET_AFTER_LEDGER_END',
            12,
            `ACS offset (${at}) is after ledger end (${state.log.end})`,
            {},
            [],
            false,
          );
      },
    },
  );
}
