// First match wins: the matcher and the evaluation of a policy document against a transaction's facts.
import { compareDecimal, sumDecimals } from './decimal.ts';
import type { TransactionFacts } from './facts.ts';
import type { PolicyDocument, PolicyMatch, PolicyRule } from './schema.ts';

/** The party's recent activity (submissions committed or under way) inside a window, not counting this one. */
export interface VelocityWindow {
  count: number;
  /** Exact decimal sum of the amounts those submissions moved. */
  amount: string;
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
  /** Total amount this transaction moves ("0" when it is no transfer). */
  amount: string;
}

/** The amount a transaction moves: the exact sum of its transfers. */
export function movedAmount(f: TransactionFacts): string {
  return sumDecimals(f.transfers.map((t) => t.amount));
}

function templateMatches(pattern: string, template: string): boolean {
  return pattern.endsWith(':*') ? template.startsWith(pattern.slice(0, -1)) : pattern === template;
}

/** The static part of a match (everything but velocity). Every condition given must hold. */
export function staticMatch(m: PolicyMatch, f: TransactionFacts): boolean {
  if (m.party && !m.party.includes(f.party)) return false;
  if (m.synchronizer && !m.synchronizer.includes(f.synchronizer)) return false;
  if (m.template && !m.template.some((p) => f.templates.some((t) => templateMatches(p, t)))) return false;
  if (m.choice && !m.choice.some((c) => f.choices.includes(c))) return false;
  if (m.counterparty && !m.counterparty.some((c) => f.counterparties.includes(c))) return false;
  if (m.amount) {
    if (f.transfers.length === 0) return false;
    const a = movedAmount(f);
    const b = m.amount;
    if (b.gt !== undefined && !(compareDecimal(a, b.gt) > 0)) return false;
    if (b.gte !== undefined && !(compareDecimal(a, b.gte) >= 0)) return false;
    if (b.lt !== undefined && !(compareDecimal(a, b.lt) < 0)) return false;
    if (b.lte !== undefined && !(compareDecimal(a, b.lte) <= 0)) return false;
  }
  return true;
}

/**
 * Velocity matches when this transaction would take the party past a limit inside the window: the Nth transfer
 * with `maxCount: N-1`, or a sum above `maxAmount`.
 */
export function velocityTrips(
  v: NonNullable<PolicyMatch['velocity']>,
  f: TransactionFacts,
  w: VelocityWindow,
): boolean {
  if (v.maxCount !== undefined && w.count + 1 > v.maxCount) return true;
  if (v.maxAmount !== undefined && compareDecimal(sumDecimals([w.amount, movedAmount(f)]), v.maxAmount) > 0) {
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

export async function evaluatePolicy(
  doc: PolicyDocument,
  facts: TransactionFacts,
  velocity?: VelocityLookup,
): Promise<PolicyDecision> {
  const amount = movedAmount(facts);
  for (const [i, rule] of doc.rules.entries()) {
    if (!staticMatch(rule.match, facts)) continue;
    const v = rule.match.velocity;
    if (v) {
      const w = velocity ? await velocity(facts.party, v.window) : { count: 0, amount: '0' };
      if (!velocityTrips(v, facts, w)) continue;
    }
    return { rule: rule.name, ruleIndex: i, outcome: outcomeOf(rule, doc), amount };
  }
  const outcome: PolicyOutcome =
    doc.default === 'deny'
      ? { action: 'deny', reason: 'no rule allows this transaction' }
      : { action: 'allow' };
  return { rule: null, ruleIndex: null, outcome, amount };
}
