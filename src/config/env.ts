// What every section module shares: the error a bad environment raises and the zod helpers its variables are
// built from. Each helper carries its own messages, so the same kind of value is refused with the same words.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export type Env = Readonly<Record<string, string | undefined>>;

/** Whether a variable counts as set: an empty value is the same as an unset one. */
export function envHas(env: Env, name: string): boolean {
  const v = env[name];
  return v !== undefined && v !== '';
}

/** Adds one problem line to the section being parsed. */
export type Problem = (line: string) => void;

export const port = (fallback: number, min = 1) =>
  z.coerce
    .number({ error: 'must be a port number' })
    .int({ error: 'must be an integer port number' })
    .min(min, { error: `must be between ${min} and 65535` })
    .max(65535, { error: `must be between ${min} and 65535` })
    .default(fallback);

export const intIn = (min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: `must be an integer between ${min} and ${max}` })
    .int({ error: `must be an integer between ${min} and ${max}` })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` })
    .default(fallback);

export const url = (protocols: string[]) =>
  z
    .string()
    .trim()
    .refine(
      (s) => {
        try {
          return protocols.includes(new URL(s).protocol);
        } catch {
          return false;
        }
      },
      { error: `must be a URL (${protocols.map((p) => p.replace(':', '')).join(' or ')})` },
    );

export const optionalText = z
  .string()
  .transform((s) => s.trim())
  .optional()
  .transform((s) => (s ? s : undefined));

/** Comma-separated, blanks dropped; unset = empty. */
export const list = z
  .string()
  .optional()
  .transform((s) =>
    (s ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x.length > 0),
  );

const DURATION_UNIT = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
/** A lifetime like 90s, 30m, 24h, 7d, in seconds. */
export const duration = (fallback: string) =>
  z
    .string()
    .trim()
    .default(fallback)
    .transform((s, ctx) => {
      const m = /^(\d+)(s|m|h|d)$/.exec(s);
      const n = m ? Number(m[1]) * DURATION_UNIT[m[2] as keyof typeof DURATION_UNIT] : 0;
      if (n <= 0) {
        ctx.addIssue({ code: 'custom', message: 'must be a positive number with s, m, h or d (e.g. 24h)' });
        return z.NEVER;
      }
      return n;
    });

/** A secret: its line in the configuration reference says so (values are never echoed, secret or not). */
export const secret = <T extends z.ZodType>(schema: T, description: string): T =>
  schema.meta({ description, secret: true });

export const noTrailingSlash = (s: string) => s.replace(/\/+$/, '');

/** Drops undefined members: optional fields are absent, not `undefined` (exactOptionalPropertyTypes). */
export function defined<T extends Record<string, unknown>>(
  o: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as never;
}

/** A secret read from a file: one trailing newline dropped; a missing or empty file is a problem. */
export function readSecretFile(path: string, name: string, problem: Problem): string | undefined {
  try {
    const text = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    if (text.length === 0) problem(`${name}: the file ${path} is empty`);
    return text;
  } catch (err) {
    problem(`${name}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
}
