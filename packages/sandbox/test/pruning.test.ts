// Pruning (POST /admin/prune) as a long run uses it: what is pruned is gone from memory (updates, contracts
// archived by then, the pruned transactions' commit counters, deduplication entries older than the longest
// deduplication period, as CommandDeduplicationStore.prune drops them), while a younger entry still
// deduplicates: the participant would refuse to prune it (FirstUnsafeOffsetComputation), the sandbox keeps it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  call,
  executeBody,
  expectLedgerError,
  onboard,
  type Party,
  prepareOn,
  type Sandbox,
  sandboxWithAdmin,
  tapCommand,
} from './helpers.ts';

const EXEC_WAIT = '/v2/interactive-submission/executeAndWait';
const MAX_DEDUP_SECONDS = 60;

let sb: Sandbox;
let admin: string;
let alice: Party;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin({ ledger: { maxDeduplicationSeconds: MAX_DEDUP_SECONDS } }));
  alice = await onboard(sb, admin, 'ed25519', 'alice');
});
afterAll(async () => {
  await sb?.close();
});

const within = (seconds: number) => ({
  deduplicationPeriod: { DeduplicationDuration: { value: { seconds, nanos: 0 } } },
});

async function tapAs(commandId: string, seconds: number): Promise<ReturnType<typeof executeBody>> {
  const prepared = await prepareOn(sb, alice, [tapCommand(sb, alice.partyId, '1.0000000000')], { commandId });
  return executeBody(alice, prepared, within(seconds));
}

async function prune(): Promise<number> {
  const offset = sb.state.log.end;
  const r = await call(sb.url, 'POST', '/admin/prune', { offset }, admin);
  expect(r.status, r.text).toBe(200);
  expect(r.json).toEqual({ participantPrunedUpToInclusive: offset });
  return offset;
}

test('a pruned update is gone and the offsets go on; its commit counter goes with it', async () => {
  const commandId = `cmd-${randomUUID()}`;
  const ok = await call(sb.url, 'POST', EXEC_WAIT, await tapAs(commandId, 30), alice.token);
  expect(ok.status, ok.text).toBe(200);
  expect(sb.state.commits.get(commandId)).toBe(1);
  const updateId = ok.json.updateId as string;
  expect(sb.state.log.offsetOf(updateId)).toBe(ok.json.completionOffset);

  const pruned = await prune();
  expect(sb.state.log.at(pruned)).toBeUndefined();
  expect(sb.state.log.offsetOf(updateId)).toBeUndefined();
  expect(sb.state.log.end).toBe(pruned);
  expect(sb.state.commits.has(commandId)).toBe(false);

  const next = await call(sb.url, 'POST', EXEC_WAIT, await tapAs(`cmd-${randomUUID()}`, 30), alice.token);
  expect(next.status, next.text).toBe(200);
  expect(next.json.completionOffset).toBe(pruned + 1);
  expect(sb.state.log.at(pruned + 1)?.updateId).toBe(next.json.updateId);
  // Pruning an offset already pruned changes nothing.
  const again = await call(sb.url, 'POST', '/admin/prune', { offset: pruned }, admin);
  expect(again.json).toEqual({ participantPrunedUpToInclusive: pruned });
  expect(sb.state.log.end).toBe(pruned + 1);
});

test('a deduplication entry survives pruning while younger than the longest period, and still deduplicates; older, pruning drops it', async () => {
  const commandId = `cmd-${randomUUID()}`;
  const first = await call(sb.url, 'POST', EXEC_WAIT, await tapAs(commandId, 30), alice.token);
  expect(first.status, first.text).toBe(200);
  const entries = sb.state.dedup.size;
  await prune();
  expect(sb.state.dedup.size).toBe(entries);
  const e = await expectLedgerError(
    sb.url,
    {
      specPath: EXEC_WAIT,
      method: 'POST',
      path: EXEC_WAIT,
      body: await tapAs(commandId, 30),
      token: alice.token,
    },
    409,
    'DUPLICATE_COMMAND',
  );
  expect(e.context.completion_offset).toBe(String(first.json.completionOffset));

  // Past the longest period: the next pruning drops the entry (and every other one as old).
  const adv = await call(sb.url, 'POST', '/admin/time', { advanceMs: (MAX_DEDUP_SECONDS + 1) * 1000 }, admin);
  expect(adv.status, adv.text).toBe(200);
  await prune();
  expect(sb.state.dedup.size).toBe(0);
  // Any period the participant accepts starts after that acceptance: the command commits again.
  const later = await call(sb.url, 'POST', EXEC_WAIT, await tapAs(commandId, MAX_DEDUP_SECONDS), alice.token);
  expect(later.status, later.text).toBe(200);
});
