// A section is what one part of Quill reads: its variables (a zod shape whose members carry their one-line
// descriptions) and how they become that part of `Config`. Loaded sections are merged into one object, so
// compose() refuses two that write the same top-level key or read the same variable: with Object.assign a
// collision would be silent.
import { z } from 'zod';
import type { Problem } from './env.ts';

/** What compose(), loadConfig and the reference generator need of a section. */
export interface AnySection {
  /** One line for the configuration reference: what the section configures and who reads it. */
  readonly summary: string;
  /** Its variables by name, each schema `.describe()`d. */
  readonly vars: z.ZodRawShape;
  /** The top-level keys of its output. */
  readonly outputs: readonly string[];
  readonly schema: z.ZodType<object>;
}

/** One section: `build` maps its parsed variables to its output and may add problem lines. */
export function section<S extends z.ZodRawShape, O extends object>(spec: {
  summary: string;
  vars: S;
  /** Every top-level key `build` returns, each once: the type refuses a missing or an extra one. */
  outputs: NoInfer<{ readonly [K in keyof O]-?: true }>;
  build: (e: z.output<z.ZodObject<S>>, problem: Problem) => O;
}) {
  const { build } = spec;
  return {
    summary: spec.summary,
    vars: spec.vars,
    outputs: Object.keys(spec.outputs),
    schema: z
      .object(spec.vars)
      .transform((e, ctx) =>
        build(e, (line) => ctx.issues.push({ code: 'custom', message: line, input: undefined, path: [] })),
      ),
  };
}

/** The sections as one registry; throws (a programming error, not a user's) on a shared key or variable. */
export function compose<T extends Record<string, AnySection>>(sections: T): T {
  const writers = new Map<string, string>();
  const readers = new Map<string, string>();
  for (const [name, s] of Object.entries(sections)) {
    for (const key of s.outputs) claim(writers, name, key, 'write the config key');
    for (const variable of Object.keys(s.vars)) claim(readers, name, variable, 'read the variable');
  }
  return sections;
}

function claim(owners: Map<string, string>, name: string, what: string, verb: string): void {
  const other = owners.get(what);
  if (other !== undefined) throw new Error(`config sections "${other}" and "${name}" both ${verb} ${what}`);
  owners.set(what, name);
}
