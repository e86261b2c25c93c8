// `npm run soak [-- N]`: the exactly-once fault test (test/system/e2e/faults.test.ts) N times in a row (default 20), each in
// a fresh vitest run, then one line with the pass count; exit 1 unless every run passed. Not part of `npm test`.
import { spawnSync } from 'node:child_process';

const runs = Number(process.argv[2] ?? process.env.SOAK_RUNS ?? 20);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('usage: npm run soak [-- N] (N a positive whole number)');
  process.exit(2);
}
let passed = 0;
for (let i = 1; i <= runs; i++) {
  const started = Date.now();
  const r = spawnSync('npx', ['vitest', 'run', 'test/system/e2e/faults.test.ts'], {
    encoding: 'utf8',
    shell: false,
  });
  const ok = r.status === 0;
  if (ok) passed++;
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`soak run ${i}/${runs}: ${ok ? 'passed' : 'FAILED'} (${secs} s)`);
  if (!ok) console.log(`${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n').slice(-60).join('\n'));
}
console.log(`soak: ${passed} of ${runs} passed`);
process.exit(passed === runs ? 0 : 1);
