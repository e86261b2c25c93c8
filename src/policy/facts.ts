// What a transaction does, as far as policy cares: read from the decoded transaction (its preview), never
// from anything the caller says about it.
import { type InstrumentId, instrumentKey } from '@quill/canton/token';
import type { PreviewNode, TransactionPreview } from '@quill/canton/transaction';
import { compareDecimal, sumDecimals } from './decimal.ts';
import { type AssetMovements, assetMovements, qualifiedTemplate } from './movements.ts';
import { DEFAULT_RECOGNIZERS, type HoldingRecognizer } from './recognizers.ts';

/** An exact amount of one instrument. */
export interface InstrumentAmount {
  instrument: InstrumentId;
  amount: string;
}

export interface TransactionFacts {
  /** The first acting party: whose velocity counts. */
  party: string;
  actAs: string[];
  synchronizer: string;
  /** ISO; `executeBefore` bounds are relative to it. */
  preparationTime: string;
  /** Package-name qualified (`#name:Module:Entity`) templates of every created, exercised or fetched contract. */
  templates: string[];
  /** Every exercised choice. */
  choices: string[];
  /** Parties that gain a stake: receivers, and signatories/observers of new contracts not already involved. */
  counterparties: string[];
  /** Parties other than the acting ones that receive: token-transfer receivers and owners gaining holdings. */
  receivers: string[];
  movements: AssetMovements;
  /** The root actions in order: what the transaction was asked to do (an intent's prepare is checked on them). */
  roots: RootAction[];
  /** What leaves the acting parties, per instrument (only positive ones; instruments are never summed). */
  outflows: InstrumentAmount[];
}

/** A root node: a create, an exercise (through an interface when `interfaceId` is set), a fetch or a lookup. */
export interface RootAction {
  kind: PreviewNode['kind'];
  /** Package-name qualified template (`#name:Module:Entity`), when known. */
  template: string | null;
  /** As the node names it (package id form). */
  templateId: string | null;
  interfaceId: string | null;
  contractId: string | null;
  choice: string | null;
}

/** The facts of a decoded transaction; holdings valued through `holdings` (first recognizer per template wins). */
export function transactionFacts(
  p: TransactionPreview,
  holdings: readonly HoldingRecognizer[] = DEFAULT_RECOGNIZERS.holdings,
): TransactionFacts {
  const party = p.actAs[0] ?? '';
  const acting = new Set(p.actAs);
  const templates = new Set<string>();
  const choices = new Set<string>();
  const involved = new Set<string>(p.actAs);
  const gaining = new Set<string>();
  for (const c of p.inputContracts) for (const s of c.stakeholders) involved.add(s);
  for (const n of p.nodes) {
    const t = qualifiedTemplate(n);
    if (t) templates.add(t);
    if (n.kind === 'exercise' && n.choice) choices.add(n.choice);
    if (n.kind === 'exercise' || n.kind === 'fetch') for (const s of n.stakeholders ?? []) involved.add(s);
    if (n.kind === 'create') for (const s of n.stakeholders ?? []) gaining.add(s);
    for (const o of n.choiceObservers ?? []) gaining.add(o);
  }
  const movements = assetMovements(p, holdings);
  const receivers = new Set<string>();
  for (const t of movements.transfers) if (!acting.has(t.receiver)) receivers.add(t.receiver);
  for (const d of movements.deltas)
    if (!acting.has(d.party) && compareDecimal(d.inflow, '0') > 0) receivers.add(d.party);
  const counterparties = new Set<string>(receivers);
  for (const g of gaining) if (!involved.has(g)) counterparties.add(g);
  const outflows = new Map<string, InstrumentAmount>();
  for (const d of movements.deltas) {
    if (!acting.has(d.party) || compareDecimal(d.outflow, '0') <= 0) continue;
    const k = instrumentKey(d.instrument);
    const o = outflows.get(k);
    outflows.set(k, { instrument: d.instrument, amount: sumDecimals([o?.amount ?? '0', d.outflow]) });
  }
  return {
    party,
    actAs: [...p.actAs],
    synchronizer: p.synchronizerId,
    preparationTime: p.preparationTime,
    templates: [...templates].sort(),
    choices: [...choices].sort(),
    counterparties: [...counterparties].sort(),
    receivers: [...receivers].sort(),
    movements,
    roots: p.nodes
      .filter((n) => n.parentId === null)
      .map((n) => ({
        kind: n.kind,
        template: qualifiedTemplate(n) ?? null,
        templateId: n.templateId ?? null,
        interfaceId: n.interfaceId ?? null,
        contractId: n.contractId ?? null,
        choice: n.choice ?? null,
      })),
    outflows: [...outflows.values()],
  };
}
