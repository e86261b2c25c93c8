// Asset movements: what a decoded, hash-checked transaction does to each party's holdings, per instrument, read from
// the contracts it creates and consumes (issue 27). Recognizers (data, ./recognizers.ts) value the holdings; a
// holding no recognizer can value is an unrecognized movement, never amount 0. Instruments are never summed together.
import {
  HOLDING_INTERFACE,
  type InstrumentId,
  instrumentKey,
  isInterface,
  META_KEYS,
  TRANSFER_FACTORY_INTERFACE,
  TRANSFER_INSTRUCTION_INTERFACE,
} from '@quill/canton/token';
import type { PreviewNode, TransactionPreview } from '@quill/canton/transaction';
import { compareDecimal, isDecimal, subtractDecimals, sumDecimals } from './decimal.ts';
import { type HoldingRecognizer, readHolding } from './recognizers.ts';

/** A holding the transaction creates or consumes, valued by a recognizer. Amounts are exact decimal strings. */
export interface HoldingRef {
  contractId: string;
  /** Package-name qualified template (`#name:Module:Entity`). */
  template: string;
  owner: string;
  instrument: InstrumentId;
  amount: string;
  locked: boolean;
}

/** One party's change in one instrument. Every figure is a non-negative exact decimal string. */
export interface InstrumentDelta {
  party: string;
  instrument: InstrumentId;
  /** Unlocked holdings consumed minus unlocked holdings created back to the party, when positive: what leaves. */
  outflow: string;
  /** Unlocked holdings the party gains, when the party's unlocked total grows. */
  inflow: string;
  /** Locked holdings the party gains (funds set aside for a pending transfer). */
  locked: string;
  /** Locked holdings of the party consumed. */
  unlocked: string;
}

/** A token-standard transfer the transaction makes or settles, from its choice argument and result. */
export interface TokenTransfer {
  /** The exercise's node id. */
  nodeId: string;
  choice:
    | 'TransferFactory_Transfer'
    | 'TransferInstruction_Accept'
    | 'TransferInstruction_Reject'
    | 'TransferInstruction_Withdraw';
  sender: string;
  receiver: string;
  amount: string;
  instrument: InstrumentId;
  /** ISO time; null when the transaction does not say (an accept of an instruction it does not carry). */
  executeBefore: string | null;
  /** `splice.lfdecentralizedtrust.org/reason`, null when absent or empty. */
  memo: string | null;
}

export interface UnrecognizedMovement {
  contractId: string;
  template: string;
  /** Why Quill cannot value it, for people. */
  why: string;
}

export interface AssetMovements {
  created: HoldingRef[];
  consumed: HoldingRef[];
  /** Per (party, instrument), parties in first-seen order. */
  deltas: InstrumentDelta[];
  transfers: TokenTransfer[];
  unrecognized: UnrecognizedMovement[];
}

const TRANSFER_CHOICES = new Set<TokenTransfer['choice']>([
  'TransferFactory_Transfer',
  'TransferInstruction_Accept',
  'TransferInstruction_Reject',
  'TransferInstruction_Withdraw',
]);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `#name:Module:Entity` of a node or input contract (its templateId is in package-id form). */
export function qualifiedTemplate(n: {
  templateId?: string | null;
  packageName?: string;
}): string | undefined {
  if (!n.templateId || !n.packageName) return undefined;
  const [, mod, entity] = n.templateId.split(':');
  return mod && entity ? `#${n.packageName}:${mod}:${entity}` : undefined;
}

/** A token-standard `Transfer` record, or undefined when it does not have the standard's shape. */
function readTransfer(t: unknown) {
  if (!isObj(t) || !isObj(t.instrumentId)) return undefined;
  const { sender, receiver, amount, executeBefore } = t;
  const { admin, id } = t.instrumentId;
  if (typeof sender !== 'string' || typeof receiver !== 'string') return undefined;
  if (typeof amount !== 'string' || !isDecimal(amount) || typeof admin !== 'string' || typeof id !== 'string')
    return undefined;
  return {
    sender,
    receiver,
    amount,
    instrument: { admin, id },
    executeBefore: typeof executeBefore === 'string' ? executeBefore : null,
    inputHoldingCids: Array.isArray(t.inputHoldingCids)
      ? t.inputHoldingCids.filter((c): c is string => typeof c === 'string')
      : [],
    meta: t.meta,
  };
}

/** The memo: `reason` in the metadata merged last-write-wins (reference §2.2); null when absent or empty. */
function memoOf(metas: unknown[]): string | null {
  let memo: unknown;
  for (const m of metas) {
    if (isObj(m) && isObj(m.values) && Object.hasOwn(m.values, META_KEYS.reason))
      memo = m.values[META_KEYS.reason];
  }
  return typeof memo === 'string' && memo !== '' ? memo : null;
}

interface Known {
  template: string | undefined;
  argument: unknown;
}

/**
 * What a decoded transaction does to holdings: every create and consuming exercise outside a rollback, valued
 * through `recognizers`; holdings created and consumed in the same transaction cancel out. Token-standard
 * transfers are read from their exercises at any depth. Whatever moves that cannot be valued is listed in
 * `unrecognized`.
 */
export function assetMovements(
  preview: TransactionPreview,
  recognizers: readonly HoldingRecognizer[],
): AssetMovements {
  const byTemplate = new Map<string, HoldingRecognizer>();
  for (const r of recognizers) if (!byTemplate.has(r.template)) byTemplate.set(r.template, r);
  const known = new Map<string, Known>();
  for (const c of preview.inputContracts)
    known.set(c.contractId, { template: qualifiedTemplate(c), argument: c.argument });

  const created = new Map<string, HoldingRef>();
  const consumed: HoldingRef[] = [];
  const unrecognized = new Map<string, UnrecognizedMovement>();
  const transfers: TokenTransfer[] = [];
  /** Contract ids the token standard itself says are holdings: Holding-interface nodes, transfer inputs. */
  const holdingSigns = new Set<string>();
  const inputs = new Set<string>();
  const consumedIds = new Set<string>();
  const createdHere = new Set<string>();
  const factories: (TokenTransfer & { contractId: string; template: string | undefined })[] = [];
  const flag = (contractId: string, template: string | undefined, why: string) => {
    if (!unrecognized.has(contractId))
      unrecognized.set(contractId, { contractId, template: template ?? '?', why });
  };
  const value = (
    contractId: string,
    template: string | undefined,
    argument: unknown,
  ): HoldingRef | undefined => {
    const r = template ? byTemplate.get(template) : undefined;
    if (!r || !template) return undefined;
    const v = readHolding(r, argument);
    if (typeof v === 'string') {
      flag(contractId, template, `a ${template} whose fields do not parse: ${v}`);
      return undefined;
    }
    return {
      contractId,
      template,
      owner: v.owner,
      instrument: { admin: v.admin, id: v.instrument },
      amount: v.amount,
      locked: v.locked,
    };
  };

  // Nodes under a rollback take no effect.
  const rolledBack = new Set<string>();
  for (const n of preview.nodes) {
    if (n.parentId !== null && rolledBack.has(n.parentId)) rolledBack.add(n.nodeId);
    if (n.kind === 'rollback') rolledBack.add(n.nodeId);
    if (rolledBack.has(n.nodeId)) continue;
    const template = qualifiedTemplate(n);
    if (n.kind === 'create' && n.contractId) {
      known.set(n.contractId, { template, argument: n.argument });
      createdHere.add(n.contractId);
      const h = value(n.contractId, template, n.argument);
      if (h) created.set(h.contractId, h);
      continue;
    }
    if (
      (n.kind === 'fetch' || n.kind === 'exercise') &&
      n.contractId &&
      isInterface(n.interfaceId, HOLDING_INTERFACE)
    )
      holdingSigns.add(n.contractId);
    if (n.kind !== 'exercise' || !n.contractId) continue;
    const t = tokenTransfer(n, known);
    if (typeof t === 'string') flag(n.contractId, template, t);
    else if (t) {
      transfers.push(t.transfer);
      for (const c of t.inputHoldingCids) inputs.add(c);
      if (t.transfer.choice === 'TransferFactory_Transfer')
        factories.push({ ...t.transfer, contractId: n.contractId, template });
    }
    if (!n.consuming) continue;
    consumedIds.add(n.contractId);
    if (created.delete(n.contractId)) continue; // transient: created and consumed here
    const k = known.get(n.contractId);
    const tpl = k?.template ?? template;
    if (!k && tpl && byTemplate.has(tpl)) {
      flag(n.contractId, tpl, `a ${tpl} whose create argument the transaction does not carry`);
      continue;
    }
    const h = k ? value(n.contractId, tpl, k.argument) : undefined;
    if (h) consumed.push(h);
  }
  const valued = new Set([...consumed.map((h) => h.contractId), ...created.keys()]);
  for (const c of new Set([...holdingSigns, ...inputs])) {
    // A holding the standard names, consumed or given as a transfer input, that no recognizer values.
    if (valued.has(c) || createdHere.has(c) || !(consumedIds.has(c) || inputs.has(c))) continue;
    const tpl = known.get(c)?.template;
    flag(c, tpl, `a token-standard holding${tpl ? ` (${tpl})` : ''} that no recognizer can value`);
  }
  const createdList = [...created.values()];
  const deltas = deltasOf(createdList, consumed);
  const short = senderShortfalls(factories, deltas);
  return {
    created: createdList,
    consumed,
    deltas,
    transfers,
    unrecognized: [...unrecognized.values(), ...short],
  };
}

/** The token-standard transfer an exercise makes or settles; a string when a factory call does not parse. */
function tokenTransfer(
  n: PreviewNode,
  known: ReadonlyMap<string, Known>,
): { transfer: TokenTransfer; inputHoldingCids: string[] } | string | undefined {
  const choice = n.choice as TokenTransfer['choice'];
  if (!TRANSFER_CHOICES.has(choice)) return undefined;
  const factory = choice === 'TransferFactory_Transfer';
  if (!isInterface(n.interfaceId, factory ? TRANSFER_FACTORY_INTERFACE : TRANSFER_INSTRUCTION_INTERFACE))
    return undefined;
  const arg = isObj(n.choiceArgument) ? n.choiceArgument : {};
  // The factory's argument carries the transfer; an instruction's own create argument does when it is standard-shaped.
  const source = factory
    ? arg.transfer
    : (known.get(n.contractId ?? '')?.argument as Obj | undefined)?.transfer;
  const t = readTransfer(source);
  if (!t) return factory ? 'a TransferFactory_Transfer whose transfer does not parse' : undefined;
  const extra = isObj(arg.extraArgs) ? arg.extraArgs.meta : undefined;
  const result = isObj(n.exerciseResult) ? n.exerciseResult.meta : undefined;
  const transfer: TokenTransfer = {
    nodeId: n.nodeId,
    choice,
    sender: t.sender,
    receiver: t.receiver,
    amount: t.amount,
    instrument: t.instrument,
    executeBefore: t.executeBefore,
    memo: memoOf([t.meta, extra, arg.meta, result]),
  };
  return { transfer, inputHoldingCids: factory ? t.inputHoldingCids : [] };
}

/** Per (party, instrument) deltas, parties in first-seen order. */
function deltasOf(created: readonly HoldingRef[], consumed: readonly HoldingRef[]): InstrumentDelta[] {
  const rows = new Map<string, { d: InstrumentDelta; gained: string[]; spent: string[] }>();
  const row = (h: HoldingRef) => {
    const k = `${h.owner}\u0000${instrumentKey(h.instrument)}`;
    let r = rows.get(k);
    if (!r) {
      r = {
        d: {
          party: h.owner,
          instrument: h.instrument,
          outflow: '0',
          inflow: '0',
          locked: '0',
          unlocked: '0',
        },
        gained: [],
        spent: [],
      };
      rows.set(k, r);
    }
    return r;
  };
  for (const h of consumed) {
    const r = row(h);
    if (h.locked) r.d.unlocked = sumDecimals([r.d.unlocked, h.amount]);
    else r.spent.push(h.amount);
  }
  for (const h of created) {
    const r = row(h);
    if (h.locked) r.d.locked = sumDecimals([r.d.locked, h.amount]);
    else r.gained.push(h.amount);
  }
  // Unlocked funds net out: change back to the party is not an outflow.
  return [...rows.values()].map(({ d, gained, spent }) => {
    const net = subtractDecimals(sumDecimals(gained), sumDecimals(spent));
    return net.startsWith('-') ? { ...d, outflow: net.slice(1) } : { ...d, inflow: net };
  });
}

/**
 * A factory transfer to someone else must show in the sender's holdings: an outflow of at least the amounts
 * transferred, per instrument. Less means Quill cannot see what leaves (an unknown registry, inputs the
 * registry picks itself): unrecognized, never amount 0.
 */
function senderShortfalls(
  factories: readonly (TokenTransfer & { contractId: string; template: string | undefined })[],
  deltas: readonly InstrumentDelta[],
): UnrecognizedMovement[] {
  const out: UnrecognizedMovement[] = [];
  const owed = new Map<string, { amounts: string[]; first: (typeof factories)[number] }>();
  for (const f of factories) {
    if (f.sender === f.receiver) continue;
    const k = `${f.sender}\u0000${instrumentKey(f.instrument)}`;
    const o = owed.get(k) ?? { amounts: [], first: f };
    o.amounts.push(f.amount);
    owed.set(k, o);
  }
  for (const [k, o] of owed) {
    const total = sumDecimals(o.amounts);
    const d = deltas.find((x) => `${x.party}\u0000${instrumentKey(x.instrument)}` === k);
    const seen = d?.outflow ?? '0';
    if (compareDecimal(seen, total) >= 0) continue;
    const f = o.first;
    out.push({
      contractId: f.contractId,
      template: f.template ?? '?',
      why:
        `TransferFactory_Transfer of ${total} ${f.instrument.id} (admin ${f.instrument.admin}) from ${f.sender}: ` +
        `the holdings Quill can value show ${seen} leaving`,
    });
  }
  return out;
}
