import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const quill = (...args: string[]) => spawnSync('node', ['bin/quill.js', ...args], { encoding: 'utf8' });

describe('quill CLI', () => {
  it('prints help with no arguments and exits 0', () => {
    const out = execFileSync('node', ['bin/quill.js'], { encoding: 'utf8' });
    expect(out).toContain('Usage: quill');
  });

  it("prints package.json's version with --version and -V, and exits 0", () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    for (const flag of ['--version', '-V']) {
      const r = quill(flag);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
      expect(r.stderr).toBe('');
    }
  });

  it('exits 2 on an unknown command', () => {
    const r = quill('no-such-command');
    expect(r.status).toBe(2);
    expect(r.stderr).not.toContain('    at '); // no stack trace
  });
});
