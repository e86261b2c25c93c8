// `npm run lint` runs dependency-cruiser with .dependency-cruiser.cjs: the real tree passes, and a tree with a
// forbidden import or a cycle fails, naming the rule (so the rules cannot silently stop matching anything).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');

function cruise(cwd: string) {
  const run = spawnSync(DEPCRUISE, ['src', '--config', '.dependency-cruiser.cjs'], { cwd, encoding: 'utf8' });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

/** A throwaway project with the real rules and the given source files. */
function project(files: Record<string, string>): string {
  const dir = tempDir('quill-deps-');
  copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  copyFileSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('dependency rules', () => {
  it('the source tree follows them', () => {
    const run = cruise(ROOT);
    expect(run.out).toContain('no dependency violations');
    expect(run.status).toBe(0);
  });

  it.each([
    ['ledger-is-a-leaf', 'src/ledger/a.ts', "import { b } from '../server/b.ts';\nexport const a = b;\n"],
    [
      'sandbox-uses-contract',
      'src/sandbox/a.ts',
      "import { b } from '../submissions/b.ts';\nexport const a = b;\n",
    ],
    [
      'config-only-in-composition',
      'src/parties/a.ts',
      "import { b } from '../config.ts';\nexport const a = b;\n",
    ],
    ['server-not-from-below', 'src/api/a.ts', "import { b } from '../server/b.ts';\nexport const a = b;\n"],
  ])('%s fails on a forbidden import', (rule, file, text) => {
    const dir = project({
      [file]: text,
      'src/server/b.ts': 'export const b = 1;\n',
      'src/submissions/b.ts': 'export const b = 1;\n',
      'src/config.ts': 'export const b = 1;\n',
    });
    const run = cruise(dir);
    expect(run.status).not.toBe(0);
    expect(run.out).toContain(rule);
  });

  it('no-circular fails on an import cycle', () => {
    const dir = project({
      'src/signing/c.ts': "import { d } from './d.ts';\nexport const c = () => d;\n",
      'src/signing/d.ts': "import { c } from './c.ts';\nexport const d = () => c;\n",
    });
    const run = cruise(dir);
    expect(run.status).not.toBe(0);
    expect(run.out).toContain('no-circular');
  });
});
