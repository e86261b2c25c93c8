// docs/configuration.md is generated from the section schemas; this fails when the committed file drifts from
// them, and when a variable lacks the one-line description the reference needs.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configReference, describeSection, describeVariable } from '../../../src/config/docs.ts';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';
import { SECTIONS } from '../../../src/config/sections.ts';

const REFERENCE = new URL('../../../docs/configuration.md', import.meta.url);
const all = Object.values(SECTIONS).flatMap(describeSection);

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` writes', () => {
    const committed = readFileSync(REFERENCE, 'utf8');
    expect(committed, 'docs/configuration.md is stale: run `npm run docs:config`').toBe(configReference());
  });

  it('describes every variable in one line, with the default the schema computes', () => {
    expect(all.length).toBeGreaterThan(90);
    for (const v of all) expect(v.description, v.name).toMatch(/^[^\n]+$/);
    const byName = new Map(all.map((v) => [v.name, v]));
    expect(byName.get('PORT')?.default).toBe('8080');
    expect(byName.get('AUTH_MAX_TOKEN_TTL')?.default).toBe('24h');
    expect(byName.get('LEDGER_URL')?.default).toBeUndefined();
    expect(byName.get('INSPECT_THREADS')?.default).toBe('cores − 1, 1 to 4');
    expect(byName.get('AUTH_JWT_SECRET')?.secret).toBe(true);
  });

  it('refuses a variable without a description, or with metadata it does not know', () => {
    expect(() => describeVariable('X', z.string().describe('x').optional())).toThrow(/X needs a one-line/);
    expect(() => describeVariable('X', z.string().describe('two\nlines'))).toThrow(/X needs a one-line/);
    expect(() => describeVariable('X', z.string().meta({ description: 'x', secrte: true }))).toThrow(
      /unknown metadata secrte/,
    );
  });

  it('marks a variable without a default that must be set as required', () => {
    expect(describeVariable('X', z.string().describe('x')).required).toBe(true);
    expect(describeVariable('X', z.string().optional().describe('x')).required).toBe(false);
  });
});

describe('secrets', () => {
  it('are never echoed in a problem line, whatever their section', () => {
    const value = 'a-secret-value';
    const secrets = all.filter((v) => v.secret).map((v) => v.name);
    expect(secrets).toEqual(expect.arrayContaining(['KEYSTORE_PASSPHRASE', 'PKCS11_PIN', 'AUTH_JWT_SECRET']));
    // Every secret set, and set twice over where it has a file variant: each section has something to refuse.
    const env = Object.fromEntries(
      secrets.flatMap((name) => [
        [name, value],
        [`${name}_FILE`, '/nonexistent'],
      ]),
    );
    let problems: readonly string[] = [];
    try {
      loadConfig(env, Object.keys(SECTIONS) as (keyof typeof SECTIONS)[]);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems = err.problems;
    }
    expect(problems.length).toBeGreaterThan(4);
    for (const line of problems) expect(line).not.toContain(value);
  });
});
