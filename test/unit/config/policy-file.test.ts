// POLICY_FILE: a bad file stops the wallet at start (ConfigError → `quill serve` exits 2), naming each path.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitFor } from '../../../src/cli/index.ts';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'quill-policy-cfg-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('POLICY_FILE', () => {
  it('loads a valid document', () => {
    const cfg = loadConfig({ POLICY_FILE: file('ok.yaml', 'rules:\n  - {name: all, action: deny}\n') }, [
      'policy',
    ]);
    expect(cfg.policy?.rules[0]?.name).toBe('all');
    expect(loadConfig({}, ['policy']).policy).toBeUndefined();
  });

  it('refuses a bad document with every path, and a missing file; exit code 2', () => {
    const bad = file('bad.yaml', 'default: maybe\nrules:\n  - {name: a, action: approve}\n');
    let err: unknown;
    try {
      loadConfig({ POLICY_FILE: bad }, ['policy']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    expect(problems).toContain('POLICY_FILE: default:');
    expect(problems).toContain('POLICY_FILE: rules[0].quorum:');
    expect(exitFor(err).code).toBe(2);
    expect(() => loadConfig({ POLICY_FILE: join(dir, 'missing.yaml') }, ['policy'])).toThrow(/cannot read/);
  });
});
