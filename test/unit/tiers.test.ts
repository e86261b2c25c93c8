// Every test file belongs to one tier of vitest.config.ts: a file outside them would never run.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const TIERED = /^(test\/(unit|integration|system)\/|packages\/(canton|sandbox)\/test\/)/;

const testFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts') && !f.includes('node_modules'))
    .map((f) => `${dir}/${f}`);

describe('test tiers', () => {
  it('places every test file in unit, integration or system', () => {
    const files = ['test', 'packages/canton', 'packages/sandbox'].flatMap(testFiles);
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => !TIERED.test(f))).toEqual([]);
  });
});
