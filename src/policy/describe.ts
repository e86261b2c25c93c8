// A preview that reads like the transfer: one sentence per asset movement, built from the movements (never from
// anything the caller says), then the node tree. Amounts are exact decimal strings, shortened only by dropping
// trailing zeros; parties are shortened for reading (the structured movements beside them carry the full ids).
import type { InstrumentId } from '@quill/canton/token';
import type { PreviewNode, TransactionPreview } from '@quill/canton/transaction';
import { compareDecimal, formatDecimal, parseDecimal, sumDecimals } from './decimal.ts';
import type { AssetMovements, HoldingRef, TokenTransfer } from './movements.ts';

/** `hint::1220abcdef01…`: the hint and the first 12 characters of the fingerprint. */
export function shortParty(p: string): string {
  const i = p.indexOf('::');
  if (i < 0 || p.length - i - 2 <= 12) return p;
  return `${p.slice(0, i + 2)}${p.slice(i + 2, i + 14)}…`;
}

/** "250.0000000000" → "250.0": exact, trailing zeros dropped, one decimal kept. */
export function shortAmount(a: string): string {
  try {
    const s = formatDecimal(parseDecimal(a));
    return s.includes('.') ? s : `${s}.0`;
  } catch {
    return a;
  }
}

const asset = (amount: string, i: InstrumentId) =>
  `${shortAmount(amount)} ${i.id} (admin ${shortParty(i.admin)})`;
const same = (a: InstrumentId, b: InstrumentId) => a.admin === b.admin && a.id === b.id;
const positive = (a: string) => compareDecimal(a, '0') > 0;

/** "2026-11-25 13:05 UTC" (seconds shown only when not zero). */
function utc(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const t = d.toISOString();
  const secs = t.slice(17, 19) === '00' ? '' : t.slice(16, 19);
  return `${t.slice(0, 10)} ${t.slice(11, 16)}${secs} UTC`;
}

function sum(hs: readonly HoldingRef[]): string {
  return sumDecimals(hs.map((h) => h.amount));
}

function details(t: TokenTransfer): string {
  return `${t.memo ? `, memo '${t.memo}'` : ''}${t.executeBefore ? `, expires ${utc(t.executeBefore)}` : ''}`;
}

function transferSentence(t: TokenTransfer, m: AssetMovements): string {
  const what = t.amount
    ? asset(t.amount, t.instrument)
    : `${t.instrument.id} (admin ${shortParty(t.instrument.admin)})`;
  const s = shortParty(t.sender);
  const r = shortParty(t.receiver);
  switch (t.choice) {
    case 'TransferInstruction_Accept':
      return `${r} accepts ${what} from ${s}`;
    case 'TransferInstruction_Reject':
      return `${r} rejects ${what} from ${s}; it goes back to ${s}`;
    case 'TransferInstruction_Withdraw':
      return `${s} withdraws the offer of ${what} to ${r}`;
    default:
      break;
  }
  const change = m.created.filter(
    (h) => h.owner === t.sender && !h.locked && same(h.instrument, t.instrument),
  );
  const changeText =
    change.length > 0 && positive(sum(change)) ? `; ${shortAmount(sum(change))} back as change` : '';
  if (t.sender === t.receiver) return `${s} moves ${what} to itself (merge and split)${details(t)}`;
  const offered = m.created.some((h) => h.owner === t.sender && h.locked && same(h.instrument, t.instrument));
  const delivered = m.created.some((h) => h.owner === t.receiver && same(h.instrument, t.instrument));
  if (offered && !delivered) {
    return `${s} offers ${what} to ${r}${details(t)}, locked until ${r} accepts, ${s} withdraws or it expires${changeText}`;
  }
  return `${s} sends ${what} to ${r}${details(t)}${changeText}`;
}

/** Sentences for the movements no token-standard transfer explains (a registry's own choices, mints, burns). */
function deltaSentences(m: AssetMovements, explained: readonly InstrumentId[]): string[] {
  const out: string[] = [];
  const receivedBySend = new Set<string>();
  for (const d of m.deltas) {
    if (explained.some((i) => same(i, d.instrument))) continue;
    const s = shortParty(d.party);
    if (positive(d.outflow)) {
      const others = m.created.filter(
        (h) => h.owner !== d.party && !h.locked && same(h.instrument, d.instrument),
      );
      const byOwner = new Map<string, HoldingRef[]>();
      for (const h of others) byOwner.set(h.owner, [...(byOwner.get(h.owner) ?? []), h]);
      for (const o of byOwner.keys()) receivedBySend.add(`${o}/${d.instrument.admin}/${d.instrument.id}`);
      const to = [...byOwner].map(
        ([o, hs]) => `${shortParty(o)}${byOwner.size > 1 ? ` (${shortAmount(sum(hs))})` : ''}`,
      );
      const change = m.created.filter(
        (h) => h.owner === d.party && !h.locked && same(h.instrument, d.instrument),
      );
      const changeText =
        change.length > 0 && positive(sum(change)) ? `; ${shortAmount(sum(change))} back as change` : '';
      out.push(
        to.length > 0
          ? `${s} sends ${asset(d.outflow, d.instrument)} to ${to.join(', ')}${changeText}`
          : `${s} gives up ${asset(d.outflow, d.instrument)} (no holder receives it: burned or locked away)${changeText}`,
      );
    }
    if (positive(d.locked)) out.push(`${s} locks ${asset(d.locked, d.instrument)}`);
    if (positive(d.unlocked)) out.push(`${s} releases ${asset(d.unlocked, d.instrument)} from a lock`);
  }
  for (const d of m.deltas) {
    if (explained.some((i) => same(i, d.instrument)) || !positive(d.inflow)) continue;
    if (receivedBySend.has(`${d.party}/${d.instrument.admin}/${d.instrument.id}`)) continue;
    out.push(`${shortParty(d.party)} receives ${asset(d.inflow, d.instrument)}`);
  }
  return out;
}

/** One sentence per movement: token-standard transfers first, then other holding changes, then what Quill cannot value. */
export function describeMovements(m: AssetMovements): string[] {
  const sentences = m.transfers.map((t) => transferSentence(t, m));
  sentences.push(
    ...deltaSentences(
      m,
      m.transfers.map((t) => t.instrument),
    ),
  );
  for (const u of m.unrecognized) {
    sentences.push(
      `Unrecognized asset movement: ${u.template} contract ${u.contractId.slice(0, 16)}…: ${u.why}`,
    );
  }
  if (sentences.length === 0) sentences.push('Moves no holding Quill recognizes');
  return sentences;
}

function qualified(n: PreviewNode): string {
  const [, mod, entity] = (n.templateId ?? '').split(':');
  return mod && entity && n.packageName ? `#${n.packageName}:${mod}:${entity}` : (n.templateId ?? '?');
}

function interfaceName(id: string | null | undefined): string {
  return id ? ` via ${id.split(':').slice(1).join(':')}` : '';
}

/** The node tree, one line per node, indented by depth: what the signature authorizes, node by node. */
export function nodeTree(p: TransactionPreview): string[] {
  return p.nodes.map((n) => {
    const pad = '  '.repeat(n.depth);
    const id = `[${n.nodeId}]`;
    switch (n.kind) {
      case 'create':
        return `${pad}${id} create ${qualified(n)}`;
      case 'exercise':
        return `${pad}${id} ${n.consuming ? 'consuming ' : ''}exercise ${n.choice} on ${qualified(n)}${interfaceName(n.interfaceId)} by ${(n.actingParties ?? []).map(shortParty).join(', ')}`;
      case 'fetch':
        return `${pad}${id} fetch ${qualified(n)}${interfaceName(n.interfaceId)}`;
      case 'rollback':
        return `${pad}${id} rollback`;
      default:
        return `${pad}${id} ${n.kind} ${qualified(n)}`;
    }
  });
}
