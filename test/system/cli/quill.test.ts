import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const quill = (...args: string[]) => spawnSync('node', ['bin/quill.js', ...args], { encoding: 'utf8' });

describe('quill CLI', () => {
  it('prints help with no arguments and exits 0', () => {
    const out = execFileSync('node', ['bin/quill.js'], { encoding: 'utf8' });
    expect(out).toContain('Usage: quill');
  });

  it('exits 2 on an unknown command', () => {
    const r = quill('no-such-command');
    expect(r.status).toBe(2);
    expect(r.stderr).not.toContain('    at '); // no stack trace
  });
});
