// What a transaction does, as far as policy cares: read from the decoded transaction (its preview), never
// from anything the caller says about it.
import type { PreviewNode, TransactionPreview } from '@quill/canton/transaction';
import { isDecimal } from './decimal.ts';
import { DEFAULT_RECOGNIZERS, type TransferRecognizer, transferRecognizer } from './recognizers.ts';

export interface Transfer {
  template: string;
  choice: string;
  receiver: string;
  amount: string;
}

export interface TransactionFacts {
  party: string;
  synchronizer: string;
  /** Package-name qualified (`#name:Module:Entity`) templates of every created, exercised or fetched contract. */
  templates: string[];
  /** Every exercised choice. */
  choices: string[];
  /** Parties that gain a stake: receivers, and signatories/observers of new contracts not already involved. */
  counterparties: string[];
  /** Amounts moved (outermost transfer exercises only, so nested ones are not counted twice). */
  transfers: Transfer[];
}

function qualified(n: { templateId?: string | null; packageName?: string }): string | undefined {
  if (!n.templateId || !n.packageName) return undefined;
  const [, mod, entity] = n.templateId.split(':');
  return mod && entity ? `#${n.packageName}:${mod}:${entity}` : undefined;
}

function transferOf(
  n: PreviewNode,
  template: string | undefined,
  table: readonly TransferRecognizer[],
): Transfer | undefined {
  if (n.kind !== 'exercise' || !n.choice || !template) return undefined;
  const arg = n.choiceArgument;
  if (!arg || typeof arg !== 'object' || Array.isArray(arg)) return undefined;
  const fields = transferRecognizer(table, template, n.choice);
  if (!fields) return undefined;
  const receiver = arg[fields.receiver];
  const amount = arg[fields.amount];
  if (typeof receiver !== 'string' || typeof amount !== 'string' || !isDecimal(amount)) return undefined;
  return { template, choice: n.choice, receiver, amount };
}

/** The facts of a decoded transaction; `transfers` are the exercises a recognizer of `table` names. */
export function transactionFacts(
  p: TransactionPreview,
  table: readonly TransferRecognizer[] = DEFAULT_RECOGNIZERS.transfers,
): TransactionFacts {
  const party = p.actAs[0] ?? '';
  const templates = new Set<string>();
  const choices = new Set<string>();
  const involved = new Set<string>(p.actAs);
  const gaining = new Set<string>();
  const transfers: Transfer[] = [];
  const inTransfer = new Set<string>();
  for (const c of p.inputContracts) for (const s of c.stakeholders) involved.add(s);
  for (const n of p.nodes) {
    const t = qualified(n);
    if (t) templates.add(t);
    if (n.kind === 'exercise' || n.kind === 'fetch') for (const s of n.stakeholders ?? []) involved.add(s);
  }
  for (const n of p.nodes) {
    const t = qualified(n);
    if (n.kind === 'exercise' && n.choice) choices.add(n.choice);
    if (n.kind === 'create') for (const s of n.stakeholders ?? []) gaining.add(s);
    for (const o of n.choiceObservers ?? []) gaining.add(o);
    const parentInTransfer = n.parentId !== null && inTransfer.has(n.parentId);
    if (parentInTransfer) inTransfer.add(n.nodeId);
    const tr = parentInTransfer ? undefined : transferOf(n, t, table);
    if (tr) {
      transfers.push(tr);
      inTransfer.add(n.nodeId);
    }
  }
  const counterparties = new Set<string>();
  for (const g of gaining) if (!involved.has(g)) counterparties.add(g);
  for (const tr of transfers) if (tr.receiver !== party) counterparties.add(tr.receiver);
  return {
    party,
    synchronizer: p.synchronizerId,
    templates: [...templates].sort(),
    choices: [...choices].sort(),
    counterparties: [...counterparties].sort(),
    transfers,
  };
}
