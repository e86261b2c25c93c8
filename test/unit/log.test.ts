// The operator log: JSON lines with a level name and an ISO time, below-level events dropped, and
// secret-shaped fields redacted even if a caller passes one by mistake.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLog } from '../../src/log.ts';
import { tempDir } from '../support/tmp.ts';

describe('jsonLog', () => {
  it('writes one JSON line per event at or above its level, with secret-shaped fields redacted', () => {
    const file = join(tempDir('quill-log-'), 'log.jsonl');
    const log = jsonLog('info', file);
    log('debug', 'not written');
    log('info', 'committed', { submission: 'sub_1', updateId: 'u1' });
    log('warn', 'careless caller', { token: 'eyJ-secret', nested: { passphrase: 'hunter2', keep: 1 } });
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      {
        level: 'info',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        msg: 'committed',
        submission: 'sub_1',
        updateId: 'u1',
      },
      {
        level: 'warn',
        time: expect.any(String),
        msg: 'careless caller',
        token: '[redacted]',
        nested: { passphrase: '[redacted]', keep: 1 },
      },
    ]);
    expect(readFileSync(file, 'utf8')).not.toMatch(/eyJ-secret|hunter2/);
  });

  it('writes nothing when silent', () => {
    const file = join(tempDir('quill-log-'), 'log.jsonl');
    jsonLog('silent', file)('error', 'dropped');
    expect(readFileSync(file, 'utf8')).toBe('');
  });
});
