// Sections are merged into one object, so two that write one key or read one variable must not load together:
// compose() refuses them when the module loads, naming both sections and the key.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { intIn } from '../../../src/config/env.ts';
import { compose, section } from '../../../src/config/section.ts';
import { SECTIONS } from '../../../src/config/sections.ts';

const summary = 'a test section';
const server = section({
  summary,
  vars: { PORT: intIn(1, 65535, 8080).describe('a port'), HOST: z.string().default('::').describe('a host') },
  outputs: { port: true, host: true },
  build: (e) => ({ port: e.PORT, host: e.HOST }),
});
const admin = section({
  summary,
  vars: { ADMIN_PORT: intIn(1, 65535, 9090).describe('another port') },
  outputs: { port: true },
  build: (e) => ({ port: e.ADMIN_PORT }),
});
const bind = section({
  summary,
  vars: { HOST: z.string().default('::').describe('the same variable') },
  outputs: { bindHost: true },
  build: (e) => ({ bindHost: e.HOST }),
});

describe('compose', () => {
  it('accepts the real sections: every key and variable has one owner', () => {
    const keys = Object.values(SECTIONS).flatMap((s) => s.outputs);
    const vars = Object.values(SECTIONS).flatMap((s) => Object.keys(s.vars));
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(vars).size).toBe(vars.length);
  });

  it('refuses two sections that write the same top-level key', () => {
    expect(() => compose({ server, admin })).toThrow(
      'config sections "server" and "admin" both write the config key port',
    );
  });

  it('refuses two sections that read the same variable', () => {
    expect(() => compose({ server, bind })).toThrow(
      'config sections "server" and "bind" both read the variable HOST',
    );
  });

  it('takes disjoint sections as they are', () => {
    const sections = { admin, bind };
    expect(compose(sections)).toBe(sections);
  });
});
