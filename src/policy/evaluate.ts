// First match wins: the matcher and the evaluation of a policy document against a transaction's facts.

import { type InstrumentId, instrumentKey } from '@quill/canton/token';
import { compareDecimal, sumDecimals } from './decimal.ts';
import type { InstrumentAmount, TransactionFacts } from './facts.ts';
import type { PolicyDocument, PolicyMatch, PolicyRule } from './schema.ts';

/** The party's recent activity (submissions committed or under way) inside a window, not counting this one. */
export interface VelocityWindow {
  count: number;
  /** By `instrumentKey`: how many of those submissions moved the instrument out, and the exact sum. */
  instruments: Readonly<Record<string, { count: number; amount: string }>>;
}

/** Looks the history up for a window of `windowSeconds` ending now. */
export type VelocityLookup = (party: string, windowSeconds: number) => Promise<VelocityWindow>;

export type PolicyOutcome =
  | { action: 'allow' }
  | { action: 'deny'; reason: string }
  | {
      action: 'approve';
      quorum: number;
      group: string | null;
      approvers: string[] | null;
      ttlSeconds: number | null;
    };

export interface PolicyDecision {
  /** The matched rule's name, null when the default applied. */
  rule: string | null;
  /** The matched rule's position (0-based), null for the default. */
  ruleIndex: number | null;
  outcome: PolicyOutcome;
  /** What the acting parties send, per instrument (empty when nothing leaves them). */
  outflows: InstrumentAmount[];
}

function templateMatches(pattern: string, template: string): boolean {
  return pattern.endsWith(':*') ? template.startsWith(pattern.slice(0, -1)) : pattern === template;
}

const sameInstrument = (a: InstrumentId, b: InstrumentId) => a.admin === b.admin && a.id === b.id;

/** The outflows a rule's amount and velocity look at: those of its instruments, or all. */
function inScope(m: PolicyMatch, f: TransactionFacts): InstrumentAmount[] {
  const only = m.instrument;
  return only ? f.outflows.filter((o) => only.some((i) => sameInstrument(i, o.instrument))) : f.outflows;
}

function within<T>(v: T, b: { gt?: T; gte?: T; lt?: T; lte?: T }, cmp: (a: T, b: T) => number): boolean {
  if (b.gt !== undefined && !(cmp(v, b.gt) > 0)) return false;
  if (b.gte !== undefined && !(cmp(v, b.gte) >= 0)) return false;
  if (b.lt !== undefined && !(cmp(v, b.lt) < 0)) return false;
  if (b.lte !== undefined && !(cmp(v, b.lte) <= 0)) return false;
  return true;
}

/** Memos longer than this never match a pattern: the pattern's cost stays bounded whatever the memo. */
const MEMO_MATCH_MAX = 1000;

/** Compiled memo patterns: a policy's few patterns, compiled once rather than on every submission. */
const compiled = new Map<string, RegExp>();
function regex(pattern: string): RegExp {
  let r = compiled.get(pattern);
  if (!r) {
    if (compiled.size >= 1000) compiled.clear();
    r = new RegExp(pattern, 'u');
    compiled.set(pattern, r);
  }
  return r;
}

function memoMatches(m: NonNullable<PolicyMatch['memo']>, memo: string | null): boolean {
  if (m.present !== undefined && (memo !== null) !== m.present) return false;
  if (m.pattern === undefined) return true;
  return memo !== null && memo.length <= MEMO_MATCH_MAX && regex(m.pattern).test(memo);
}

/** The static part of a match (everything but velocity). Every condition given must hold. */
export function staticMatch(m: PolicyMatch, f: TransactionFacts): boolean {
  const transfers = f.movements.transfers;
  if (m.party && !m.party.includes(f.party)) return false;
  if (m.synchronizer && !m.synchronizer.includes(f.synchronizer)) return false;
  if (m.template && !m.template.some((p) => f.templates.some((t) => templateMatches(p, t)))) return false;
  if (m.choice && !m.choice.some((c) => f.choices.includes(c))) return false;
  if (m.counterparty && !m.counterparty.some((c) => f.counterparties.includes(c))) return false;
  if (m.unrecognized !== undefined && m.unrecognized !== f.movements.unrecognized.length > 0) return false;
  if (m.instrument) {
    const ids = [...f.outflows.map((o) => o.instrument), ...transfers.map((t) => t.instrument)];
    if (!m.instrument.some((i) => ids.some((x) => sameInstrument(i, x)))) return false;
  }
  const bounds = m.amount;
  if (bounds && !inScope(m, f).some((o) => within(o.amount, bounds, compareDecimal))) return false;
  if (m.receiver && !m.receiver.some((r) => f.receivers.includes(r))) return false;
  const memo = m.memo;
  if (memo && !transfers.some((t) => memoMatches(memo, t.memo))) return false;
  const eb = m.executeBefore;
  if (eb) {
    const prepared = Date.parse(f.preparationTime);
    const open = transfers.flatMap((t) =>
      t.executeBefore ? [(Date.parse(t.executeBefore) - prepared) / 1000] : [],
    );
    if (!open.some((s) => Number.isFinite(s) && within(s, eb, (a, b) => a - b))) return false;
  }
  return true;
}

/**
 * Velocity matches when this transaction would take the party past a limit inside the window, per instrument:
 * the Nth transfer with `maxCount: N-1`, or a sum above `maxAmount`. Without an `instrument` condition,
 * `maxCount` counts every submission of the party.
 */
export function velocityTrips(
  v: NonNullable<PolicyMatch['velocity']>,
  m: PolicyMatch,
  f: TransactionFacts,
  w: VelocityWindow,
): boolean {
  if (v.maxCount !== undefined && !m.instrument && w.count + 1 > v.maxCount) return true;
  for (const o of inScope(m, f)) {
    const past = w.instruments[instrumentKey(o.instrument)] ?? { count: 0, amount: '0' };
    if (v.maxCount !== undefined && m.instrument && past.count + 1 > v.maxCount) return true;
    if (v.maxAmount !== undefined && compareDecimal(sumDecimals([past.amount, o.amount]), v.maxAmount) > 0)
      return true;
  }
  return false;
}

function outcomeOf(rule: PolicyRule, doc: PolicyDocument): PolicyOutcome {
  const t = rule;
  if (t.action === 'allow') return { action: 'allow' };
  if (t.action === 'deny') return { action: 'deny', reason: t.reason ?? `denied by rule ${rule.name}` };
  return {
    action: 'approve',
    quorum: t.quorum,
    group: t.group ?? null,
    approvers: t.group !== undefined ? [...(doc.groups[t.group] ?? [])] : null,
    ttlSeconds: t.ttl ?? null,
  };
}

/** What the deny of an unrecognized movement says, bounded. */
function unrecognizedReason(f: TransactionFacts): string {
  const what = f.movements.unrecognized.map((u) => `${u.contractId}: ${u.why}`);
  const text = `unrecognized asset movement (no rule allows it): ${what.slice(0, 5).join('; ')}`;
  return what.length > 5 ? `${text}; and ${what.length - 5} more` : text;
}

export async function evaluatePolicy(
  doc: PolicyDocument,
  facts: TransactionFacts,
  velocity?: VelocityLookup,
): Promise<PolicyDecision> {
  const outflows = facts.outflows;
  // Under `unrecognizedAssets: deny`, what Quill cannot value is for the rules that say they mean it.
  const strict = doc.unrecognizedAssets === 'deny' && facts.movements.unrecognized.length > 0;
  for (const [i, rule] of doc.rules.entries()) {
    if (strict && rule.match.unrecognized !== true) continue;
    if (!staticMatch(rule.match, facts)) continue;
    const v = rule.match.velocity;
    if (v) {
      const w = velocity ? await velocity(facts.party, v.window) : { count: 0, instruments: {} };
      if (!velocityTrips(v, rule.match, facts, w)) continue;
    }
    return { rule: rule.name, ruleIndex: i, outcome: outcomeOf(rule, doc), outflows };
  }
  const outcome: PolicyOutcome = strict
    ? { action: 'deny', reason: unrecognizedReason(facts) }
    : doc.default === 'deny'
      ? { action: 'deny', reason: 'no rule allows this transaction' }
      : { action: 'allow' };
  return { rule: null, ruleIndex: null, outcome, outflows };
}
