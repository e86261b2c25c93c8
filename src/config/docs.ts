// The configuration reference (docs/configuration.md), rendered from the section schemas: each variable's
// one-line description, whether it is a secret, and its default as the schema computes it. `npm run
// docs:config` writes it; test/unit/config/docs.test.ts fails when the committed file differs.
import { z } from 'zod';
import type { AnySection } from './section.ts';
import { SECTIONS, WALLET_SECTIONS } from './sections.ts';

/** One variable's row. */
export interface VariableDoc {
  readonly name: string;
  readonly description: string;
  /** As the operator would write it; absent = no default. */
  readonly default?: string;
  /** `default` is words, not a value (it depends on the machine). */
  readonly defaultInWords: boolean;
  readonly secret: boolean;
  /** No default and unset is refused. */
  readonly required: boolean;
}

/** What a variable's schema may carry (`.describe()`, `secret()`, `.meta()`); anything else is a typo. */
const META_KEYS = new Set(['description', 'secret', 'shownDefault']);

export function describeVariable(name: string, schema: z.ZodType): VariableDoc {
  const meta = z.globalRegistry.get(schema) ?? {};
  const unknown = Object.keys(meta).filter((k) => !META_KEYS.has(k));
  if (unknown.length > 0) throw new Error(`${name}: unknown metadata ${unknown.join(', ')}`);
  const { description, secret, shownDefault } = meta;
  if (typeof description !== 'string' || description.trim() === '' || /[\r\n]/.test(description))
    throw new Error(`${name} needs a one-line description: .describe() last in its schema's chain`);
  const fallback = shownDefault ?? defaultOf(schema);
  return {
    name,
    description,
    ...(fallback !== undefined ? { default: String(fallback) } : {}),
    defaultInWords: shownDefault !== undefined,
    secret: secret === true,
    required: !schema.safeParse(undefined).success,
  };
}

/** The value `.default()` fills in before any transform: what an operator would write. */
function defaultOf(schema: z.core.$ZodType): unknown {
  if (schema instanceof z.ZodDefault) return schema.def.defaultValue;
  if (schema instanceof z.ZodPipe) return defaultOf(schema.in);
  return undefined;
}

export function describeSection(section: AnySection): VariableDoc[] {
  return Object.entries(section.vars).map(([name, schema]) => describeVariable(name, schema as z.ZodType));
}

const cell = (s: string) => s.replace(/\|/g, '\\|');
const code = (s: string) => '`' + s + '`';

function table(vars: readonly VariableDoc[]): string[] {
  const rows = vars.map((v) => {
    const marks = [v.required ? '**required**' : '', v.secret ? '*secret*' : ''].filter(Boolean).join(', ');
    const variable = code(v.name) + (marks ? ` (${marks})` : '');
    const fallback = v.default === undefined ? '' : v.defaultInWords ? v.default : code(v.default);
    return `| ${cell(variable)} | ${cell(fallback)} | ${cell(v.description)} |`;
  });
  return ['| Variable | Default | Description |', '|---|---|---|', ...rows];
}

/** docs/configuration.md, from the sections as they are. */
export function configReference(): string {
  const sections: Readonly<Record<string, AnySection>> = SECTIONS;
  const names = Object.keys(sections);
  const serve: readonly string[] = WALLET_SECTIONS;
  const notServe = names.filter((n) => !serve.includes(n));
  const but = notServe.length > 0 ? ` but ${notServe.map(code).join(', ')}` : '';
  const vars = Object.values(sections).flatMap(describeSection);
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from the schemas in src/config/ by `npm run docs:config`: edit those, not this file. -->',
    '',
    'Quill is configured by environment variables, validated at start: every bad value is reported, one line',
    'each (a secret is never echoed), and the command exits with code 2. An empty variable counts as unset.',
    '',
    'Variables come in sections, one module each under `src/config/`. A command validates only the',
    `sections it reads: \`quill serve\` every section${but}, other commands only what they need`,
    '(`quill keys` reads `keys`, `quill submit` reads `client`, …).',
    '',
    '*secret* marks a value to keep out of logs and process listings (prefer its `_FILE` variant where',
    'there is one).',
    '',
    'Tracing is configured by the standard `OTEL_*` variables, read by the OpenTelemetry SDK and its OTLP exporter',
    'themselves, not by these sections (so not validated here): see',
    '[operations.md, "Tracing"](operations.md#tracing).',
    ...(vars.some((v) => v.required)
      ? ['**required** marks a variable without a default that must be set.']
      : []),
    '',
    `Sections: ${names.map((n) => `[${n}](#${n})`).join(' · ')}.`,
  ];
  for (const [name, section] of Object.entries(sections)) {
    lines.push('', `## ${name}`, '', section.summary, '', ...table(describeSection(section)));
  }
  return `${lines.join('\n')}\n`;
}
