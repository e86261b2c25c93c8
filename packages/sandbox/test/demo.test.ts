// `--demo` with ledger options is still the demo: `quill serve --demo` (npm start) passes the wallet's preparation
// window and `quill sandbox --demo` its deduplication period, and both once replaced the demo's synchronizers and
// other participants with the defaults instead of adding to them.
import { afterEach, expect, test } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.ts';

let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

test('ledger options add to the demo ledger: its synchronizers and participants stay, the option applies', async () => {
  sb = await startSandbox({
    port: 0,
    scanPort: 0,
    auth: 'none',
    demo: true,
    ledger: { preparationTimeToleranceSeconds: 90, maxDeduplicationSeconds: 600 },
  });
  expect(sb.state.synchronizers.map((s) => s.alias)).toEqual(['global', 'private']);
  expect(sb.state.otherParticipants).toHaveLength(2);
  expect(sb.state.preparationTimeToleranceSeconds).toBe(90);
  expect(sb.state.maxDeduplicationSeconds).toBe(600);
});

test('without --demo the options apply to the default ledger', async () => {
  sb = await startSandbox({ port: 0, scanPort: 0, auth: 'none', ledger: { maxDeduplicationSeconds: 600 } });
  expect(sb.state.synchronizers.map((s) => s.alias)).toEqual(['global', 'second']);
  expect(sb.state.otherParticipants).toEqual([]);
  expect(sb.state.maxDeduplicationSeconds).toBe(600);
});
