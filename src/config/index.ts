// Environment → typed configuration, validated at start with one clear message per bad value. Each section
// (one module here) is a zod schema over its variables whose transform output is that section's part of
// `Config`; a command loads only the sections it uses, so an unrelated variable never stops it. The
// configuration reference (docs/configuration.md) is generated from the same schemas: `npm run docs:config`.
import type { z } from 'zod';
import { type Env, envHas } from './env.ts';
import { ConfigError } from './errors.ts';
import { SECTIONS, type SectionName, WALLET_SECTIONS } from './sections.ts';

export type { SectionName };
export { ConfigError, envHas };

// Arrays keep a mutable type: the API's settings types (not ours to change here) take `string[]`.
export type DeepReadonly<T> = T extends (infer E)[]
  ? DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
type Intersect<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
/** The configuration made of the sections `S`; nobody changes a loaded one. */
export type ConfigOf<S extends SectionName> = DeepReadonly<
  Intersect<z.output<(typeof SECTIONS)[S]['schema']>>
>;
/** The wallet's whole configuration (`quill serve`). */
export type Config = ConfigOf<(typeof WALLET_SECTIONS)[number]>;
export type LogLevel = Config['logLevel'];

/**
 * Parses the sections a command uses (default: the wallet's); throws ConfigError listing every bad value in
 * them (never the secret itself). Empty variables count as unset.
 */
export function loadConfig(env?: Env): Config;
export function loadConfig<S extends SectionName>(env: Env, sections: readonly S[]): ConfigOf<S>;
export function loadConfig(
  env: Env = process.env,
  sections: readonly SectionName[] = WALLET_SECTIONS,
): unknown {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const name of sections) {
    const { vars, outputs, schema } = SECTIONS[name];
    const raw: Record<string, string | undefined> = {};
    for (const key of Object.keys(vars)) raw[key] = envHas(env, key) ? env[key] : undefined;
    const parsed = schema.safeParse(raw);
    if (parsed.success) {
      // compose() proved the declared outputs disjoint; this keeps each section to its declaration.
      for (const key of Object.keys(parsed.data)) {
        if (!outputs.includes(key))
          throw new Error(`config section "${name}" wrote ${key}, not in its outputs`);
      }
      Object.assign(out, parsed.data);
    } else {
      for (const issue of parsed.error.issues) {
        problems.push(issue.path.length > 0 ? `${String(issue.path[0])}: ${issue.message}` : issue.message);
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}
