// `quill audit export` and `quill audit verify` as processes: an export verifies; an edited, deleted or reordered line
// is named (exit 1); garbage and a missing file exit 2.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { sixEntryChain } from '../../support/audit-chain.ts';
import { testRedis } from '../../support/records.ts';
import { runCli } from '../../support/run-cli.ts';
import { tempDir } from '../../support/tmp.ts';

const redis = testRedis();
afterAll(() => redis.quit());

describe('quill audit export and verify', () => {
  it('exports JSON lines that verify; an edited, deleted or reordered line is named, exit 1', async () => {
    const { store } = await sixEntryChain(redis);
    const env = { REDIS_URL: inject('redisUrl'), REDIS_PREFIX: store.prefix.slice(0, -1) };
    expect(await runCli(['audit', 'verify'], env)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('ok: 6 entries'),
    });
    const file = join(tempDir('quill-audit-'), 'audit.jsonl');
    expect((await runCli(['audit', 'export', '--out', file], env)).code).toBe(0);
    expect(await runCli(['audit', 'verify', file], {})).toMatchObject({ code: 0 });
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    const cases: [string, string[]][] = [
      ['edited', lines.map((l, i) => (i === 4 ? l.replace('"ops"', '"eve"') : l))],
      ['deleted', lines.filter((_, i) => i !== 1)],
      ['reordered', [lines[0], lines[3], lines[1], lines[2], lines[4], lines[5]] as string[]],
    ];
    for (const [what, tampered] of cases) {
      const bad = join(tempDir('quill-audit-'), `${what}.jsonl`);
      await writeFile(bad, `${tampered.join('\n')}\n`);
      const r = await runCli(['audit', 'verify', bad], {});
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toMatch(/audit chain broken at entry \d+ of \d+/);
    }
    const garbage = join(tempDir('quill-audit-'), 'garbage.jsonl');
    await writeFile(garbage, 'not json\n');
    expect((await runCli(['audit', 'verify', garbage], {})).code).toBe(2);
    expect((await runCli(['audit', 'verify', '/nonexistent/file'], {})).code).toBe(2);
  });
});
