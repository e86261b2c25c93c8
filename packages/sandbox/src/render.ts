/**
 * Rendering updates for a reader: event formats (per-party and any-party filters, template/wildcard filters,
 * ACS_DELTA vs LEDGER_EFFECTS shapes), visibility (witnesses are the requested parties among the
 * stakeholders/informees), reassignments, topology events, the deprecated tree form, and JSON shapes of the
 * spec (null for unset optionals).
 */
import type { EventFormat, Filters, TransactionFormat, UpdateFormat } from '@quill/canton/ledger';
import { createdEventBlob } from './blob.ts';
import { valueToJson } from './lfjson.ts';
import { interfacePackageIdForm } from './registry/interfaces.ts';
import { interfaces } from './registry/table.ts';
import type {
  CommittedNode,
  Contract,
  ReassignmentUpdate,
  TopologyUpdate,
  TransactionUpdate,
  UpdateRecord,
} from './state/index.ts';

interface FilterSpec {
  wildcard: boolean;
  templates: Set<string>;
  /** InterfaceFilters: `#name:Module:Entity` → whether the view is asked for. */
  interfaces: Map<string, boolean>;
  blob: boolean;
}

export interface Reader {
  byParty: Map<string, FilterSpec>;
  anyParty?: FilterSpec;
  verbose: boolean;
}

export interface Format {
  transactions?: { reader: Reader; shape: 'ACS_DELTA' | 'LEDGER_EFFECTS' };
  reassignments?: Reader;
  topology?: { parties: Set<string> | 'all' };
}

function spec(f: Filters | null | undefined): FilterSpec {
  const out: FilterSpec = { wildcard: false, templates: new Set(), interfaces: new Map(), blob: false };
  const list = f?.cumulative ?? [];
  if (list.length === 0) out.wildcard = true;
  for (const c of list) {
    const id = c.identifierFilter;
    if (!id || 'Empty' in id) out.wildcard = true;
    else if ('WildcardFilter' in id) {
      out.wildcard = true;
      out.blob ||= id.WildcardFilter.value.includeCreatedEventBlob === true;
    } else if ('TemplateFilter' in id) {
      out.templates.add(id.TemplateFilter.value.templateId);
      out.blob ||= id.TemplateFilter.value.includeCreatedEventBlob === true;
    } else if ('InterfaceFilter' in id) {
      const f = id.InterfaceFilter.value;
      out.interfaces.set(
        f.interfaceId,
        (out.interfaces.get(f.interfaceId) ?? false) || f.includeInterfaceView === true,
      );
      out.blob ||= f.includeCreatedEventBlob === true;
    }
  }
  return out;
}

export function readerOf(f: EventFormat): Reader {
  const byParty = new Map<string, FilterSpec>();
  for (const [party, filters] of Object.entries(f.filtersByParty ?? {})) byParty.set(party, spec(filters));
  return {
    byParty,
    anyParty: f.filtersForAnyParty ? spec(f.filtersForAnyParty) : undefined,
    verbose: f.verbose ?? false,
  };
}

export function transactionFormatOf(f: TransactionFormat): Format['transactions'] {
  return {
    reader: readerOf(f.eventFormat),
    shape: f.transactionShape === 'TRANSACTION_SHAPE_LEDGER_EFFECTS' ? 'LEDGER_EFFECTS' : 'ACS_DELTA',
  };
}

export function formatOf(u: UpdateFormat): Format {
  const parties = u.includeTopologyEvents?.includeParticipantAuthorizationEvents?.parties;
  return {
    transactions: u.includeTransactions ? transactionFormatOf(u.includeTransactions) : undefined,
    reassignments: u.includeReassignments ? readerOf(u.includeReassignments) : undefined,
    topology: u.includeTopologyEvents?.includeParticipantAuthorizationEvents
      ? { parties: parties && parties.length > 0 ? new Set(parties) : 'all' }
      : undefined,
  };
}

/**
 * Whether a filter selects a contract: a wildcard, its template, or an interface its template implements
 * (an InterfaceFilter matches the contracts of every template implementing the interface).
 */
function matches(s: FilterSpec, c: Contract): boolean {
  if (s.wildcard) return true;
  const [, m, e] = c.templateId.split(':');
  if (s.templates.has(c.templateId) || s.templates.has(`#${c.packageName}:${m}:${e}`)) return true;
  for (const i of s.interfaces.keys()) if (interfaces().implements(c, i)) return true;
  return false;
}

interface Witnessed {
  parties: string[];
  blob: boolean;
  /** Implemented interfaces whose InterfaceFilter (of a witnessing party) asks for the view. */
  views: string[];
}

function witnesses(reader: Reader, c: Contract, informees: readonly string[]): Witnessed | undefined {
  const parties: string[] = [];
  let blob = false;
  let any = false;
  const views = new Set<string>();
  const addViews = (s: FilterSpec) => {
    for (const [i, view] of s.interfaces) if (view && interfaces().implements(c, i)) views.add(i);
  };
  if (reader.anyParty && matches(reader.anyParty, c)) {
    any = true;
    blob ||= reader.anyParty.blob;
    addViews(reader.anyParty);
  }
  for (const p of informees) {
    const s = reader.byParty.get(p);
    if (any || (s && matches(s, c))) {
      parties.push(p);
      if (s) {
        blob ||= s.blob;
        addViews(s);
      }
    }
  }
  return parties.length > 0
    ? { parties: [...new Set(parties)].sort(), blob, views: [...views].sort() }
    : undefined;
}

/** `implementedInterfaces` of a consuming exercise or archive: the matched interfaces, in package-id form. */
function implemented(w: Witnessed): string[] {
  return w.views.map(interfacePackageIdForm);
}

function createdEvent(c: Contract, offset: number, nodeId: number, w: Witnessed, acsDelta: boolean) {
  return {
    CreatedEvent: {
      offset,
      nodeId,
      contractId: c.contractId,
      templateId: c.templateId,
      contractKey: null,
      createArgument: valueToJson(c.argument),
      createdEventBlob: w.blob ? createdEventBlob(c) : '',
      // One view per interface whose filter (of a witness) asks for it, as computed by the participant.
      interfaceViews: w.views.map((i) => ({
        interfaceId: interfacePackageIdForm(i),
        viewStatus: { code: 0, message: '', details: [] },
        viewValue: interfaces().view(c, i) ?? null,
        implementationPackageId: c.packageId,
      })),
      witnessParties: w.parties,
      signatories: c.signatories,
      observers: c.stakeholders.filter((p) => !c.signatories.includes(p)),
      createdAt: c.createdAt,
      packageName: c.packageName,
      representativePackageId: c.packageId,
      acsDelta,
    },
  };
}

function events(tx: TransactionUpdate, reader: Reader, shape: 'ACS_DELTA' | 'LEDGER_EFFECTS') {
  const out: unknown[] = [];
  const consumedInTx = new Set(
    tx.nodes.filter((n) => n.kind === 'exercise' && n.consuming).map((n) => n.contract.contractId),
  );
  // LEDGER_EFFECTS: a party witnesses the whole subtree of an action it is an informee of (the ledger's
  // projection), e.g. the sender of a transfer sees the receiver's new holding. Open exercises, innermost last.
  const open: { last: number; informees: string[] }[] = [];
  for (const n of tx.nodes) {
    while (open.length > 0 && open[open.length - 1]!.last < n.nodeId) open.pop();
    if (shape === 'ACS_DELTA') {
      if (n.kind === 'create' && !consumedInTx.has(n.contract.contractId)) {
        const w = witnesses(reader, n.contract, n.contract.stakeholders);
        if (w) out.push(createdEvent(n.contract, tx.offset, n.nodeId, w, true));
      } else if (n.kind === 'exercise' && n.consuming && n.contract.createdOffset !== tx.offset) {
        const w = witnesses(reader, n.contract, n.contract.stakeholders);
        if (w) out.push({ ArchivedEvent: archived(n, tx.offset, w) });
      }
    } else {
      const own =
        n.kind === 'create' ? n.contract.stakeholders : [...n.contract.stakeholders, ...n.actingParties];
      const informees = [...new Set([...own, ...(open[open.length - 1]?.informees ?? [])])];
      if (n.kind === 'exercise') open.push({ last: n.lastDescendantNodeId, informees });
      const w = witnesses(reader, n.contract, informees);
      if (!w) continue;
      if (n.kind === 'create') {
        out.push(createdEvent(n.contract, tx.offset, n.nodeId, w, !consumedInTx.has(n.contract.contractId)));
      } else {
        out.push({ ExercisedEvent: exercised(n, tx.offset, w) });
      }
    }
  }
  return out;
}

function archived(n: Extract<CommittedNode, { kind: 'exercise' }>, offset: number, w: Witnessed) {
  return {
    offset,
    nodeId: n.nodeId,
    contractId: n.contract.contractId,
    templateId: n.contract.templateId,
    witnessParties: w.parties,
    packageName: n.contract.packageName,
    implementedInterfaces: implemented(w),
  };
}

function exercised(n: Extract<CommittedNode, { kind: 'exercise' }>, offset: number, w: Witnessed) {
  const parties = w.parties;
  return {
    offset,
    nodeId: n.nodeId,
    contractId: n.contract.contractId,
    templateId: n.contract.templateId,
    // Set when the command exercised an interface choice (package-id form, as the participant writes it).
    interfaceId: n.interfaceId ?? null,
    choice: n.choice,
    choiceArgument: valueToJson(n.choiceArgument),
    actingParties: n.actingParties,
    consuming: n.consuming,
    witnessParties: parties,
    lastDescendantNodeId: n.lastDescendantNodeId,
    exerciseResult: valueToJson(n.result),
    packageName: n.contract.packageName,
    implementedInterfaces: n.consuming ? implemented(w) : [],
    acsDelta: n.consuming && n.contract.createdOffset !== offset,
  };
}

/**
 * The transaction as the reader sees it, or undefined when no event is visible to it. `commandId` is only
 * shown to readers that include a submitting party.
 */
export function renderTransaction(
  tx: TransactionUpdate,
  f: NonNullable<Format['transactions']>,
  force = false,
) {
  const evs = events(tx, f.reader, f.shape);
  if (evs.length === 0 && !force) return undefined;
  const submitterReads = tx.actAs.some((p) => f.reader.byParty.has(p)) || f.reader.anyParty !== undefined;
  return {
    updateId: tx.updateId,
    commandId: submitterReads ? tx.commandId : '',
    workflowId: tx.workflowId,
    effectiveAt: tx.effectiveAt,
    events: evs,
    offset: tx.offset,
    synchronizerId: tx.synchronizerId,
    traceContext: tx.traceparent ? { traceparent: tx.traceparent, tracestate: null } : null,
    recordTime: tx.recordTime,
    externalTransactionHash: tx.externalTransactionHash ?? null,
    paidTrafficCost: tx.paidTrafficCost ?? 0,
  };
}

function renderTopology(u: TopologyUpdate, f: NonNullable<Format['topology']>) {
  const evs = u.events.filter((e) => f.parties === 'all' || f.parties.has(e.partyId));
  if (evs.length === 0) return undefined;
  return {
    updateId: u.updateId,
    offset: u.offset,
    synchronizerId: u.synchronizerId,
    recordTime: u.recordTime,
    events: evs.map((e) => ({
      event:
        e.change === 'revoked'
          ? {
              ParticipantAuthorizationRevoked: {
                value: { partyId: e.partyId, participantId: e.participantId },
              },
            }
          : {
              [e.change === 'changed' ? 'ParticipantAuthorizationChanged' : 'ParticipantAuthorizationAdded']:
                {
                  value: {
                    partyId: e.partyId,
                    participantId: e.participantId,
                    participantPermission: e.permission,
                  },
                },
            },
    })),
    traceContext: null,
  };
}

/** A reassignment as the reader sees it (its stakeholders among the filter's parties), or undefined. */
function renderReassignment(r: ReassignmentUpdate, reader: Reader) {
  const w = witnesses(reader, r.contract, r.contract.stakeholders);
  if (!w) return undefined;
  const c = r.contract;
  const event =
    r.event === 'unassigned'
      ? {
          JsUnassignedEvent: {
            value: {
              reassignmentId: r.reassignmentId,
              contractId: c.contractId,
              templateId: c.templateId,
              source: r.source,
              target: r.target,
              submitter: r.submitter,
              reassignmentCounter: r.reassignmentCounter,
              assignmentExclusivity: null,
              witnessParties: w.parties,
              packageName: c.packageName,
              offset: r.offset,
              nodeId: 0,
            },
          },
        }
      : {
          JsAssignmentEvent: {
            source: r.source,
            target: r.target,
            reassignmentId: r.reassignmentId,
            submitter: r.submitter,
            reassignmentCounter: r.reassignmentCounter,
            createdEvent: createdEvent(c, r.offset, 0, w, true).CreatedEvent,
          },
        };
  return {
    updateId: r.updateId,
    commandId: '',
    workflowId: '',
    offset: r.offset,
    events: [event],
    traceContext: null,
    recordTime: r.recordTime,
    synchronizerId: r.synchronizerId,
    paidTrafficCost: 0,
  };
}

/** One update in the `Update` oneof for a format, or undefined when nothing of it is visible. */
export function renderUpdate(r: UpdateRecord, f: Format) {
  if (r.kind === 'transaction') {
    const tx = f.transactions ? renderTransaction(r, f.transactions) : undefined;
    return tx ? { Transaction: { value: tx } } : undefined;
  }
  if (r.kind === 'reassignment') {
    const re = f.reassignments ? renderReassignment(r, f.reassignments) : undefined;
    return re ? { Reassignment: { value: re } } : undefined;
  }
  if (r.kind !== 'topology') return undefined;
  const topo = f.topology ? renderTopology(r, f.topology) : undefined;
  return topo ? { TopologyTransaction: { value: topo } } : undefined;
}

/**
 * The deprecated tree form (`/v2/updates/trees`, `transaction-tree-by-*`): a transaction's LEDGER_EFFECTS events
 * keyed by node id, as `CreatedTreeEvent` / `ExercisedTreeEvent`.
 */
export function renderTransactionTree(tx: TransactionUpdate, reader: Reader) {
  const flat = renderTransaction(tx, { reader, shape: 'LEDGER_EFFECTS' });
  if (!flat) return undefined;
  const eventsById: Record<string, unknown> = {};
  for (const e of flat.events as (
    | { CreatedEvent: { nodeId: number } }
    | { ExercisedEvent: { nodeId: number } }
  )[]) {
    if ('CreatedEvent' in e)
      eventsById[e.CreatedEvent.nodeId] = { CreatedTreeEvent: { value: e.CreatedEvent } };
    else eventsById[e.ExercisedEvent.nodeId] = { ExercisedTreeEvent: { value: e.ExercisedEvent } };
  }
  const { events: _events, externalTransactionHash: _hash, paidTrafficCost: _cost, ...rest } = flat;
  return { ...rest, eventsById };
}

/** One element of `/v2/updates/trees`: a transaction tree or a reassignment, or undefined. */
export function renderUpdateTree(r: UpdateRecord, reader: Reader) {
  if (r.kind === 'transaction') {
    const tree = renderTransactionTree(r, reader);
    return tree ? { TransactionTree: { value: tree } } : undefined;
  }
  if (r.kind === 'reassignment') {
    const re = renderReassignment(r, reader);
    return re ? { Reassignment: { value: re } } : undefined;
  }
  return undefined;
}

/** `events-by-contract-id`: the create (and archive) of a contract as the reader may see them. */
export function renderContractEvents(c: Contract, reader: Reader) {
  const w = witnesses(reader, c, c.stakeholders);
  if (!w) return undefined;
  return {
    created: {
      createdEvent: createdEvent(c, c.createdOffset, c.createdNodeId, w, true).CreatedEvent,
      synchronizerId: c.synchronizerId,
    },
    archived:
      c.archivedOffset === undefined
        ? null
        : {
            archivedEvent: {
              offset: c.archivedOffset,
              nodeId: c.archivedNodeId ?? 0,
              contractId: c.contractId,
              templateId: c.templateId,
              witnessParties: w.parties,
              packageName: c.packageName,
              implementedInterfaces: implemented(w),
            },
            synchronizerId: c.synchronizerId,
          },
  };
}

/** An entry of `/v2/state/active-contracts` for the reader (its stakeholders among the filter's parties), or undefined. */
export function renderActiveContract(c: Contract, reader: Reader) {
  const w = witnesses(reader, c, c.stakeholders);
  if (!w) return undefined;
  return {
    workflowId: '',
    contractEntry: {
      JsActiveContract: {
        createdEvent: createdEvent(c, c.createdOffset, c.createdNodeId, w, true).CreatedEvent,
        synchronizerId: c.synchronizerId,
        reassignmentCounter: c.reassignmentCounter,
      },
    },
  };
}
