// Update stream behaviour: open-ended ranges wait for new updates (idle timeout), limits, descending order, topology events of party allocation; and the demo ledger and the CLI.

import { ledgerSpec } from '@quill/canton/testing/openapi';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SandboxUsageError, sandboxCommand } from '../src/cli.ts';
import { startSandbox } from '../src/index.ts';
import { call, onboard, type Party, run, type Sandbox, sandboxWithAdmin, tapCommand } from './helpers.ts';

let sb: Sandbox;
let admin: string;
let alice: Party;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  alice = await onboard(sb, admin);
});
afterAll(async () => {
  await sb?.close();
});

const FLATS = '/v2/updates/flats';
type Item = { update: Record<string, { value: { offset: number } }> };
const kind = (u: Item) => Object.keys(u.update)[0];

describe('updates stream', () => {
  test('an open-ended request returns what arrives before the idle timeout, then completes', async () => {
    const begin = sb.state.log.end;
    const format = {
      includeTransactions: {
        eventFormat: { filtersByParty: { [alice.partyId]: {} } },
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
      },
    };
    const started = Date.now();
    const pending = call(
      sb.url,
      'POST',
      `${FLATS}?stream_idle_timeout_ms=400`,
      { beginExclusive: begin, updateFormat: format },
      alice.token,
    );
    await new Promise((r) => setTimeout(r, 100));
    await run(sb, alice, [tapCommand(sb, alice.partyId, '1.0000000000')]);
    const res = await pending;
    expect(res.status).toBe(200);
    ledgerSpec().expectValidResponse(FLATS, 'post', 200, res.json);
    expect(res.json.map(kind)).toEqual(['Transaction']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  });

  test('a bounded range holds only visible updates (checkpoints: reads.test.ts); limit cuts it', async () => {
    const noise = await onboard(sb, admin);
    for (let i = 0; i < 4; i++) await run(sb, noise, [tapCommand(sb, noise.partyId, '1.0000000000')]);
    const body = {
      beginExclusive: 0,
      endInclusive: sb.state.log.end,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [noise.partyId]: {} } },
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      },
    };
    const res = await call(sb.url, 'POST', FLATS, body, noise.token);
    ledgerSpec().expectValidResponse(FLATS, 'post', 200, res.json);
    expect(res.json.map(kind)).toEqual(['Transaction', 'Transaction', 'Transaction', 'Transaction']);
    const limited = await call(sb.url, 'POST', `${FLATS}?limit=2`, body, noise.token);
    expect(limited.json).toHaveLength(2);
  });

  test('topology events for party allocations, descending order with endInclusive', async () => {
    const body = {
      beginExclusive: 0,
      endInclusive: sb.state.log.end,
      descendingOrder: true,
      updateFormat: {
        includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [alice.partyId] } },
      },
    };
    const res = await call(sb.url, 'POST', FLATS, body, alice.token);
    expect(res.json).toHaveLength(1);
    const topo = res.json[0].update.TopologyTransaction.value;
    expect(topo.events[0].event.ParticipantAuthorizationAdded.value).toMatchObject({
      partyId: alice.partyId,
      participantId: sb.state.participantId,
      participantPermission: 'PARTICIPANT_PERMISSION_CONFIRMATION',
    });
  });
});

describe('demo and CLI', () => {
  test('the demo ledger has users, parties, vetting on several participants and coin history', async () => {
    const demo = await startSandbox({ port: 0, scanPort: 0, auth: 'none', demo: true });
    try {
      const vetted = await call(demo.url, 'POST', '/v2/package-vetting/list', {
        topologyStateFilter: { participantIds: [] },
      });
      const pairs = new Set(
        vetted.json.vettedPackages.map((v: { participantId: string }) => v.participantId),
      );
      expect(pairs.size).toBe(3);
      const feed = await call(demo.scanUrl, 'POST', '/v0/activities', { page_size: 50 });
      const types = new Set(feed.json.activities.map((a: { activity_type: string }) => a.activity_type));
      expect([...types].sort()).toEqual(['abort_transfer_instruction', 'devnet_tap', 'mint', 'transfer']);
      expect((await call(demo.url, 'GET', '/v2/users/alice')).json.user.primaryParty).toMatch(/^alice::/);
    } finally {
      await demo.close();
    }
  });

  test('quill-sandbox refuses contradictory or bad options (SandboxUsageError → exit 2)', async () => {
    const parse = (args: string[]) => sandboxCommand().exitOverride().parseAsync(args, { from: 'user' });
    await expect(parse(['--no-auth', '--auth-secret', 'x'.repeat(20)])).rejects.toThrow(SandboxUsageError);
    await expect(parse(['--port', 'seventy'])).rejects.toThrow(SandboxUsageError);
    await expect(parse(['--auth-secret', 'short'])).rejects.toThrow(SandboxUsageError);
    await expect(parse(['--faults', '/nonexistent/faults.json'])).rejects.toThrow(SandboxUsageError);
  });
});
