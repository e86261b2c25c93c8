// `npm run lint` runs dependency-cruiser with .dependency-cruiser.cjs: the real tree passes, and a throwaway tree
// with one forbidden import per rule (and a cycle) fails with every rule named at the file that breaks it, so no
// rule can silently stop matching. Two depcruise runs in all.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../support/tmp.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const RULES = (
  createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: { name: string }[] }
).forbidden.map((r) => r.name);

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

function cruise(cwd: string): { status: number | null; out: string; violations: Violation[] } {
  const run = spawnSync(
    DEPCRUISE,
    ['src', 'packages', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
    { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const json = JSON.parse(run.stdout) as { summary: { violations: Violation[] } };
  return { status: run.status, out: run.stderr, violations: json.summary.violations };
}

const use = (spec: string) => `import { b } from '${spec}';\nexport const a = b;\n`;
const stub = 'export const b = 1;\n';

/** One forbidden import per rule: [rule, file, its text]. */
const BAD: [string, string, string][] = [
  ['canton-is-generic', 'packages/canton/src/scan/a.ts', use('../../../../src/submissions/b.ts')],
  ['ledger-is-a-leaf', 'packages/canton/src/ledger/a.ts', use('../transaction/b.ts')],
  ['transaction-uses-schemas', 'packages/canton/src/transaction/a.ts', use('../ledger/b.ts')],
  ['scan-uses-ledger', 'packages/canton/src/scan/c.ts', use('../transaction/b.ts')],
  ['token-is-a-leaf', 'packages/canton/src/token/a.ts', use('../ledger/b.ts')],
  ['sandbox-uses-canton', 'packages/sandbox/src/a.ts', use('../../../src/submissions/b.ts')],
  ['product-not-sandbox', 'src/server/a.ts', use('@quill/sandbox')],
  ['redis-is-infrastructure', 'src/redis/a.ts', use('../submissions/b.ts')],
  ['auth-is-a-leaf', 'src/auth/a.ts', use('../redis/b.ts')],
  ['audit-uses-redis', 'src/audit/a.ts', use('../submissions/b.ts')],
  ['signing-uses-ledger', 'src/signing/a.ts', use('../redis/b.ts')],
  ['parties-use-leaves', 'src/parties/a.ts', use('../submissions/b.ts')],
  ['policy-uses-transaction', 'src/policy/a.ts', use('../submissions/b.ts')],
  ['submissions-use-leaves', 'src/submissions/a.ts', use('../events/b.ts')],
  ['history-reads-the-ledger', 'src/history/a.ts', use('../submissions/b.ts')],
  ['events-use-domain', 'src/events/a.ts', use('../api/b.ts')],
  ['intents-use-pipeline', 'src/intents/a.ts', use('../events/b.ts')],
  ['api-uses-domain', 'src/api/a.ts', use('../console/b.ts')],
  ['console-uses-api', 'src/console/a.ts', use('../events/b.ts')],
  ['config-only-in-composition', 'src/signing/c.ts', use('../config/b.ts')],
  ['server-not-from-below', 'src/api/c.ts', use('../server/b.ts')],
];

/** Imports the rules allow, beside the forbidden ones: the commands and the dev composition may load the sandbox. */
const FINE: [string, string][] = [
  ['src/cli/a.ts', use('@quill/sandbox')],
  ['src/dev/a.ts', use('@quill/sandbox')],
  ['src/server/c.ts', use('../submissions/b.ts')],
  ['src/policy/c.ts', use('../../packages/canton/src/token/b.ts')],
  ['src/api/d.ts', use('../intents/b.ts')],
  ['src/audit/c.ts', use('../signing/b.ts')],
];

function fixture(): string {
  const dir = tempDir('quill-deps-');
  copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  copyFileSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  const files: Record<string, string> = {
    // The sandbox as the workspace links it: a package whose name resolves to packages/sandbox.
    'packages/sandbox/package.json': JSON.stringify({
      name: '@quill/sandbox',
      exports: { '.': './src/index.ts' },
    }),
    'packages/sandbox/src/index.ts': stub,
    // A cycle.
    'src/signing/d.ts': "import { e } from './e.ts';\nexport const d = () => e;\n",
    'src/signing/e.ts': "import { d } from './d.ts';\nexport const e = () => d;\n",
  };
  for (const folder of ['submissions', 'redis', 'events', 'api', 'console', 'config', 'server', 'signing'])
    files[`src/${folder}/b.ts`] = stub;
  for (const folder of ['transaction', 'ledger', 'token']) files[`packages/canton/src/${folder}/b.ts`] = stub;
  for (const [, file, text] of BAD) files[file] = text;
  for (const [file, text] of FINE) files[file] = text;
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  mkdirSync(join(dir, 'node_modules/@quill'), { recursive: true });
  symlinkSync(join(dir, 'packages/sandbox'), join(dir, 'node_modules/@quill/sandbox'));
  return dir;
}

describe('dependency rules', () => {
  // depcruise over the whole tree takes ~10 s on a quiet machine and three times that beside other work.
  it('the source tree follows them', { timeout: 90_000 }, () => {
    const run = cruise(ROOT);
    expect(run.violations).toEqual([]);
    expect(run.status).toBe(0);
  });

  it('every rule fires on its forbidden import, at that file; allowed imports pass', () => {
    const run = cruise(fixture());
    const at = (rule: string) => run.violations.filter((v) => v.rule.name === rule).map((v) => v.from);
    for (const [rule, file] of BAD) expect(at(rule), rule).toContain(file);
    expect(at('no-circular').length).toBeGreaterThan(0);
    // Every rule of the configuration is exercised here.
    expect(new Set([...BAD.map(([rule]) => rule), 'no-circular'])).toEqual(new Set(RULES));
    for (const [file] of FINE) expect(run.violations.filter((v) => v.from === file)).toEqual([]);
  });
});
