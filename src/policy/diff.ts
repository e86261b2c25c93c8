// What a policy change changes, as an admin reviews it: rules by name (added, removed, each field changed, moved in
// the first-match order), groups by name with the people added and removed, and the top-level settings. Paths are
// readable (`rules.big-payments.quorum`), values are the documents' own.
import { canonicalJson } from '../json.ts';
import type { PolicyDocument, PolicyRule } from './schema.ts';

export interface PolicyChange {
  path: string;
  change: 'added' | 'removed' | 'changed' | 'moved';
  before?: unknown;
  after?: unknown;
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

function value(path: string, before: unknown, after: unknown): PolicyChange[] {
  if (before === undefined && after === undefined) return [];
  if (before === undefined) return [{ path, change: 'added', after }];
  if (after === undefined) return [{ path, change: 'removed', before }];
  return same(before, after) ? [] : [{ path, change: 'changed', before, after }];
}

function groups(before: PolicyDocument['groups'], after: PolicyDocument['groups']): PolicyChange[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return names.flatMap((name) => {
    const b = before[name];
    const a = after[name];
    if (!b || !a) return value(`groups.${name}`, b, a);
    const added = a.filter((m) => !b.includes(m));
    const removed = b.filter((m) => !a.includes(m));
    if (added.length === 0 && removed.length === 0) return [];
    return [{ path: `groups.${name}`, change: 'changed' as const, before: removed, after: added }];
  });
}

function rules(before: readonly PolicyRule[], after: readonly PolicyRule[]): PolicyChange[] {
  const byName = (rs: readonly PolicyRule[]) => new Map(rs.map((r, i) => [r.name, { r, i }]));
  const b = byName(before);
  const a = byName(after);
  const out: PolicyChange[] = [];
  for (const [name, { r }] of b)
    if (!a.has(name)) out.push({ path: `rules.${name}`, change: 'removed', before: r });
  // Kept rules whose place among the kept ones changed: first match wins, so order is meaning.
  const kept = (rs: readonly PolicyRule[], other: Map<string, unknown>) =>
    rs.filter((r) => other.has(r.name)).map((r) => r.name);
  const keptBefore = kept(before, a);
  const keptAfter = kept(after, b);
  for (const [i, rule] of after.entries()) {
    const was = b.get(rule.name);
    if (!was) {
      out.push({ path: `rules.${rule.name}`, change: 'added', after: { position: i + 1, ...rule } });
      continue;
    }
    const fields = [...new Set([...Object.keys(was.r), ...Object.keys(rule)])];
    for (const f of fields) {
      out.push(
        ...value(
          `rules.${rule.name}.${f}`,
          (was.r as Record<string, unknown>)[f],
          (rule as Record<string, unknown>)[f],
        ),
      );
    }
    if (keptBefore.indexOf(rule.name) !== keptAfter.indexOf(rule.name)) {
      out.push({ path: `rules.${rule.name}`, change: 'moved', before: was.i + 1, after: i + 1 });
    }
  }
  return out;
}

/** The changes from `before` (none: no policy was in force) to `after`. */
export function policyDiff(before: PolicyDocument | undefined, after: PolicyDocument): PolicyChange[] {
  return [
    ...value('default', before?.default, after.default),
    ...value('unrecognizedAssets', before?.unrecognizedAssets, after.unrecognizedAssets),
    ...value('policyGovernance', before?.policyGovernance, after.policyGovernance),
    ...groups(before?.groups ?? {}, after.groups),
    ...rules(before?.rules ?? [], after.rules),
  ];
}
