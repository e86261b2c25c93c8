// What counts as a holding is data, not code: a table of recognizers, one per registry template, saying where in
// the create argument (Daml-LF JSON) the owner, amount, instrument and lock are. The composition root supplies
// it: the built-in Amulet ones below, a RECOGNIZERS_FILE, and the embedded sandbox's. Policy names no registry
// package but Amulet's, which every Canton network has.
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { isDecimal } from './decimal.ts';

/**
 * A registry's holding template: dot paths into its create argument (`amount.initialAmount`), or `=Literal` for a
 * value every contract of it shares (`instrument: '=Amulet'`). `lock` names a field that is present and not null
 * when the holding is locked, or `=true` for a template whose every contract is locked.
 */
export interface HoldingRecognizer {
  /** Package-name qualified: `#pkg:Module:Entity`. */
  template: string;
  owner: string;
  amount: string;
  admin: string;
  instrument: string;
  lock?: string;
}

export interface AssetRecognizers {
  /** The first recognizer naming a template wins. */
  holdings: readonly HoldingRecognizer[];
}

/** Amulet (Canton Coin), token-standard reference §5.2: `Amulet` and `LockedAmulet` of package `splice-amulet`. */
export const AMULET_RECOGNIZERS: readonly HoldingRecognizer[] = [
  {
    template: '#splice-amulet:Splice.Amulet:Amulet',
    owner: 'owner',
    amount: 'amount.initialAmount',
    admin: 'dso',
    instrument: '=Amulet',
  },
  {
    template: '#splice-amulet:Splice.Amulet:LockedAmulet',
    owner: 'amulet.owner',
    amount: 'amulet.amount.initialAmount',
    admin: 'amulet.dso',
    instrument: '=Amulet',
    lock: '=true',
  },
];

/** The recognizers `quill serve` starts with, before RECOGNIZERS_FILE and an embedded ledger's. */
export const DEFAULT_RECOGNIZERS: AssetRecognizers = { holdings: AMULET_RECOGNIZERS };

const PATH = /^[A-Za-z_][A-Za-z0-9_]{0,99}(\.[A-Za-z_][A-Za-z0-9_]{0,99}){0,9}$/;
const Path = z
  .string()
  .regex(PATH, { message: 'must be a dot path into the create argument, like "amount.initialAmount"' });
const PathOrLiteral = z.union([Path, z.string().regex(/^=.{1,255}$/, { message: 'or "=Literal"' })]);
export const HoldingRecognizerSchema = z
  .object({
    template: z.string().regex(/^#[A-Za-z0-9_-]{1,255}:[A-Za-z0-9_.]{1,255}:[A-Za-z0-9_.]{1,255}$/, {
      message: 'must be a package-name qualified template id like "#my-registry:My.Token:Holding"',
    }),
    owner: Path,
    amount: Path,
    admin: PathOrLiteral,
    instrument: PathOrLiteral,
    lock: z.union([Path, z.literal('=true')]).optional(),
  })
  .strict();
/** A RECOGNIZERS_FILE: `{holdings: [...]}`. */
export const RecognizersFile = z.object({ holdings: z.array(HoldingRecognizerSchema).max(1000) }).strict();

/** The value at a dot path, or the literal after `=`; undefined when a step is missing. */
export function valueAt(arg: unknown, path: string): unknown {
  if (path.startsWith('=')) return path.slice(1);
  let v = arg;
  for (const k of path.split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, k)) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

export interface ValuedHolding {
  owner: string;
  amount: string;
  admin: string;
  instrument: string;
  locked: boolean;
}

/** Reads a create argument through a recognizer; a string saying what is wrong when a field does not parse. */
export function readHolding(r: HoldingRecognizer, arg: unknown): ValuedHolding | string {
  const text = (field: 'owner' | 'admin' | 'instrument' | 'amount') => {
    const v = valueAt(arg, r[field]);
    return typeof v === 'string' && v.length > 0 ? v : undefined;
  };
  const owner = text('owner');
  const admin = text('admin');
  const instrument = text('instrument');
  const amount = text('amount');
  if (owner === undefined) return `no owner at ${r.owner}`;
  if (admin === undefined) return `no admin at ${r.admin}`;
  if (instrument === undefined) return `no instrument id at ${r.instrument}`;
  if (amount === undefined || !isDecimal(amount) || amount.startsWith('-'))
    return `no non-negative decimal amount at ${r.amount}`;
  const lock = r.lock === undefined ? undefined : valueAt(arg, r.lock);
  return { owner, amount, admin, instrument, locked: lock !== undefined && lock !== null };
}

/** A RECOGNIZERS_FILE's text (YAML or JSON) → its recognizers, or each problem with its path. */
export function parseRecognizers(
  text: string,
): { holdings: HoldingRecognizer[] } | { problems: { path: string; message: string }[] } {
  let value: unknown;
  try {
    value = parseYaml(text, { maxAliasCount: 100, uniqueKeys: true, logLevel: 'error' });
  } catch (err) {
    const line = (err as Error).message.split('\n')[0] ?? 'cannot parse';
    return { problems: [{ path: '', message: `not YAML or JSON: ${line.slice(0, 200)}` }] };
  }
  const r = RecognizersFile.safeParse(value ?? {});
  if (r.success) return { holdings: r.data.holdings.map(({ lock, ...h }) => (lock ? { ...h, lock } : h)) };
  return {
    problems: r.error.issues.map((i) => ({
      path: i.path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
        .join('')
        .replace(/^\./, ''),
      message: i.message.slice(0, 200),
    })),
  };
}
