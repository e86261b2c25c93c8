// The policy document: ordered rules, first match wins, a default action. Parsed from YAML or JSON (YAML is a
// superset), validated with zod; every problem is reported with its path.

import { echo } from '@quill/canton/errors';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { personName } from '../auth/index.ts';
import { isDecimal } from './decimal.ts';
import { PolicyInvalid } from './errors.ts';

const Decimal = z
  .string()
  .refine(isDecimal, { message: 'must be a decimal string such as "100.0" (no exponent, no float)' });
/** Amounts may be written as YAML numbers only when they are integers (exact); fractions must be strings. */
const Amount = z.union([
  Decimal,
  z
    .number()
    .int()
    .refine((n) => Number.isSafeInteger(n), { message: 'must be a safe integer or a decimal string' })
    .transform((n) => String(n)),
]);

const Party = z.string().min(1).max(512);
const OneOrMany = z
  .union([Party, z.array(Party).min(1).max(1000)])
  .transform((v) => (Array.isArray(v) ? v : [v]));
const TEMPLATE = /^#[A-Za-z0-9_-]{1,255}:[A-Za-z0-9_.]{1,255}:([A-Za-z0-9_.]{1,255}|\*)$/;
const Template = z.string().regex(TEMPLATE, {
  message:
    'must be a package-name qualified template id like "#quill-coin:Quill.Coin:Holding" (entity may be *)',
});
const Duration = z.union([
  z
    .number()
    .int()
    .positive()
    .max(365 * 86400),
  z
    .string()
    .regex(/^\d{1,7}(s|m|h|d)$/, { message: 'must be a duration like "30s", "15m", "24h", "7d"' })
    .transform((s) => Number(s.slice(0, -1)) * { s: 1, m: 60, h: 3600, d: 86400 }[s.slice(-1) as 's']),
]);

const AmountBounds = z
  .object({ gt: Amount, gte: Amount, lt: Amount, lte: Amount })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'give at least one of gt, gte, lt, lte' });

const Velocity = z
  .object({
    window: Duration,
    maxCount: z.number().int().nonnegative().max(1_000_000).optional(),
    maxAmount: Amount.optional(),
  })
  .strict()
  .refine((v) => v.maxCount !== undefined || v.maxAmount !== undefined, {
    message: 'give maxCount, maxAmount or both',
  });

/** Both fields: an "Amulet" of another admin is another instrument. */
const Instrument = z.object({ admin: Party, id: z.string().min(1).max(255) }).strict();

/** One instrument or a list; a problem is reported at the field that has it (`instrument.admin`). */
const Instruments = z.unknown().transform((v, ctx): z.infer<typeof Instrument>[] => {
  const r = Array.isArray(v) ? z.array(Instrument).min(1).max(100).safeParse(v) : Instrument.safeParse(v);
  if (r.success) return Array.isArray(r.data) ? r.data : [r.data];
  for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: i.path });
  return z.NEVER;
});

/** Bounds on (executeBefore − preparationTime). */
const DurationBounds = z
  .object({ gt: Duration, gte: Duration, lt: Duration, lte: Duration })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'give at least one of gt, gte, lt, lte' });

/** Memo patterns are the policy author's; bounded so a pattern stays cheap to compile and read. */
const Pattern = z
  .string()
  .min(1)
  .max(200)
  .refine(
    (p) => {
      try {
        new RegExp(p, 'u');
        return true;
      } catch {
        return false;
      }
    },
    { message: 'must be a regular expression (JavaScript, unicode)' },
  );
const Memo = z
  .object({ present: z.boolean(), pattern: Pattern })
  .partial()
  .strict()
  .refine((m) => Object.keys(m).length > 0, { message: 'give present, pattern or both' });

export const PolicyMatch = z
  .object({
    party: OneOrMany,
    synchronizer: OneOrMany,
    template: z
      .union([Template, z.array(Template).min(1).max(100)])
      .transform((v) => (Array.isArray(v) ? v : [v])),
    choice: z
      .union([z.string().min(1).max(255), z.array(z.string().min(1).max(255)).min(1).max(100)])
      .transform((v) => (Array.isArray(v) ? v : [v])),
    counterparty: OneOrMany,
    amount: AmountBounds,
    instrument: Instruments,
    receiver: OneOrMany,
    memo: Memo,
    executeBefore: DurationBounds,
    unrecognized: z.boolean(),
    velocity: Velocity,
  })
  .partial()
  .strict();
export type PolicyMatch = z.infer<typeof PolicyMatch>;

const RuleBase = {
  name: z.string().min(1).max(100),
  match: PolicyMatch.default({}),
};

/** A rule: its name, what it matches, and its action with the action's options beside it. */
const Rule = z.discriminatedUnion('action', [
  z.object({ ...RuleBase, action: z.literal('allow') }).strict(),
  z
    .object({ ...RuleBase, action: z.literal('deny'), reason: z.string().min(1).max(500).optional() })
    .strict(),
  z
    .object({
      ...RuleBase,
      action: z.literal('approve'),
      quorum: z.number().int().min(1).max(100),
      group: z.string().min(1).max(100).optional(),
      ttl: Duration.optional(),
    })
    .strict(),
]);
export type PolicyRule = z.infer<typeof Rule>;

/** The group exists and has at least `quorum` people (`alice` and `oidc:alice` are one person, src/auth). */
function groupReaches(
  groups: Record<string, string[]>,
  group: string,
  quorum: number,
  at: (string | number)[],
  ctx: z.RefinementCtx,
): void {
  const members = groups[group];
  if (!members) {
    ctx.addIssue({ code: 'custom', path: [...at, 'group'], message: 'no such group' });
    return;
  }
  const people = new Set(members.map(personName)).size;
  if (people < quorum) {
    ctx.addIssue({
      code: 'custom',
      path: [...at, 'quorum'],
      message: `quorum exceeds the ${people} people of group ${group}`,
    });
  }
}

export const PolicyDocument = z
  .object({
    default: z.enum(['allow', 'deny']).default('allow'),
    /** deny: a transaction moving assets Quill cannot value matches only rules with `unrecognized: true`. */
    unrecognizedAssets: z.enum(['allow', 'deny']).default('deny'),
    groups: z
      .record(z.string().min(1).max(100), z.array(z.string().min(1).max(512)).min(1).max(1000))
      .default({}),
    rules: z.array(Rule).max(1000).default([]),
    /**
     * Changes to the policy need a quorum of distinct admins of `group` (docs/policies.md); a proposal waits at most
     * `ttl` (default 7 days).
     */
    policyGovernance: z
      .object({
        quorum: z.number().int().min(1).max(100),
        group: z.string().min(1).max(100),
        ttl: Duration.optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((doc, ctx) => {
    const gov = doc.policyGovernance;
    if (gov) groupReaches(doc.groups, gov.group, gov.quorum, ['policyGovernance'], ctx);
    const names = new Set<string>();
    doc.rules.forEach((r, i) => {
      if (names.has(r.name))
        ctx.addIssue({ code: 'custom', path: ['rules', i, 'name'], message: 'duplicate rule name' });
      names.add(r.name);
      if (r.action === 'approve' && r.group !== undefined)
        groupReaches(doc.groups, r.group, r.quorum, ['rules', i], ctx);
    });
  });
export type PolicyDocument = z.infer<typeof PolicyDocument>;

function pathText(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}

/** Validates a parsed document; throws PolicyInvalid naming each problem's path (e.g. `rules[2].quorum`). */
export function validatePolicy(value: unknown): PolicyDocument {
  const r = PolicyDocument.safeParse(value);
  if (r.success) return r.data;
  throw new PolicyInvalid(
    r.error.issues.map((i) => ({ path: echo(pathText(i.path), 200), message: echo(i.message, 200) })),
  );
}

/** YAML or JSON text → a validated document. */
export function parsePolicy(text: string): PolicyDocument {
  let value: unknown;
  try {
    value = parseYaml(text, { maxAliasCount: 100, uniqueKeys: true, logLevel: 'error' });
  } catch (err) {
    const line = (err as Error).message.split('\n')[0] ?? 'cannot parse';
    throw new PolicyInvalid([{ path: '', message: `not YAML or JSON: ${line.slice(0, 200)}` }]);
  }
  return validatePolicy(value ?? {});
}
