// What a proposed policy change shows its reviewers (issue 29 item 4): nothing for an identical document, and
// something for every change that alters a decision (a rule's field, the rule order, a group's people, defaults).
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { type PolicyDocument, policyDiff, policyHash, validatePolicy } from '../../../src/policy/index.ts';

const people = fc.uniqueArray(fc.constantFrom('ann', 'ben', 'cat', 'dee', 'eve'), {
  minLength: 1,
  maxLength: 5,
});
const rule = fc.record({
  name: fc.constantFrom('a', 'b', 'c', 'd'),
  action: fc.constantFrom('allow', 'deny'),
  match: fc.record({ amount: fc.record({ lte: fc.constantFrom('1', '10', '100') }) }, { requiredKeys: [] }),
});
const doc = fc
  .record({
    default: fc.constantFrom('allow', 'deny'),
    groups: fc.dictionary(fc.constantFrom('ops', 'treasury'), people),
    rules: fc.uniqueArray(rule, { selector: (r) => r.name, maxLength: 4 }),
  })
  .map((d) => validatePolicy(d));

const sortedGroups = (d: PolicyDocument) =>
  Object.fromEntries(Object.entries(d.groups).map(([k, v]) => [k, [...v].sort()]));

describe('policyDiff', () => {
  test.prop([doc])('a document against itself changes nothing', (d) => {
    expect(policyDiff(d, structuredClone(d))).toEqual([]);
  });

  test.prop([doc, doc])(
    'no change shown means the same decisions (the same document up to member order)',
    (a, b) => {
      if (policyDiff(a, b).length > 0) return;
      expect(policyHash({ ...a, groups: sortedGroups(a) })).toBe(
        policyHash({ ...b, groups: sortedGroups(b) }),
      );
    },
  );

  it('names each change by rule and field, and a reorder as a move', () => {
    const before = validatePolicy({
      groups: { ops: ['ann', 'ben'] },
      rules: [
        { name: 'x', action: 'deny' },
        { name: 'y', action: 'approve', quorum: 1, group: 'ops' },
      ],
    });
    const after = validatePolicy({
      default: 'deny',
      groups: { ops: ['ann', 'cat'] },
      rules: [
        { name: 'y', action: 'approve', quorum: 2, group: 'ops' },
        { name: 'x', action: 'deny' },
        { name: 'z', action: 'allow' },
      ],
    });
    expect(policyDiff(before, after)).toEqual([
      { path: 'default', change: 'changed', before: 'allow', after: 'deny' },
      { path: 'groups.ops', change: 'changed', before: ['ben'], after: ['cat'] },
      { path: 'rules.y.quorum', change: 'changed', before: 1, after: 2 },
      { path: 'rules.y', change: 'moved', before: 2, after: 1 },
      { path: 'rules.x', change: 'moved', before: 1, after: 2 },
      { path: 'rules.z', change: 'added', after: { position: 3, name: 'z', action: 'allow', match: {} } },
    ]);
    expect(policyDiff(undefined, before).map((c) => c.change)).not.toContain('removed');
  });
});
