// Quill on a real Redis Cluster (3 masters, 3 replicas) and a real Sentinel group (a master, 2 replicas, 3 sentinels)
// (issue 13, items 1 and 2). On the Cluster every key Quill and BullMQ write carries the deployment's hash tag (one
// slot), the store's scripts run there, and submissions commit exactly once. On Sentinel, the master is SIGKILLed
// in the middle of a load of submissions: a replica is promoted, every submission that got a 202 is still there,
// and each commits exactly once on the ledger.
import { randomUUID } from 'node:crypto';
import type { LedgerClient } from '@quill/canton/ledger';
import type { Sandbox } from '@quill/sandbox';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/auth/index.ts';
import { stopRedisProcess } from '../../support/redis-process.ts';
import {
  type SentinelGroup,
  startCluster,
  startSentinelGroup,
  type Topology,
} from '../../support/redis-topologies.ts';
import {
  noteCommand,
  prepareOn,
  SECRET,
  startFullWallet,
  startLedger,
  walletConfig,
} from '../../support/wallet.ts';

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Command ids of the party's transactions on the ledger (each must appear once). */
async function ledgerCommandIds(client: LedgerClient, party: string): Promise<string[]> {
  const updates = await client.updatesFlats(
    {
      beginExclusive: 0,
      endInclusive: await client.ledgerEndOffset(),
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false },
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      },
    },
    { limit: 10_000 },
  );
  return updates
    .map((u) => (u.update as { Transaction?: { value: { commandId: string } } }).Transaction?.value.commandId)
    .filter((c): c is string => !!c);
}

/** Submits `n` notes (retrying each 503 with its own Idempotency-Key); `during(i)` runs after the i-th 202. */
async function load(
  w: Awaited<ReturnType<typeof startFullWallet>>,
  party: string,
  n: number,
  during: (accepted: number) => Promise<void> = async () => {},
): Promise<{ id: string; commandId: string }[]> {
  const token = await issueToken({ secret: SECRET, role: 'submit', party, ttlSeconds: 600, subject: 'load' });
  const out: { id: string; commandId: string }[] = [];
  for (let i = 0; i < n; i++) {
    const body = await prepareOn(w.client, party, noteCommand(party));
    const key = randomUUID();
    const end = Date.now() + 60_000;
    for (;;) {
      const res = await fetch(`${w.wallet.url}/wallet/v1/submissions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify(body),
      }).catch(() => undefined);
      if (res && (res.status === 202 || res.status === 200)) {
        out.push((await res.json()) as { id: string; commandId: string });
        break;
      }
      if (res && res.status !== 503) throw new Error(`submission ${i}: ${res.status} ${await res.text()}`);
      if (Date.now() > end) throw new Error(`submission ${i}: still unavailable after 60 s`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await during(out.length);
  }
  return out;
}

async function allCommitted(w: Awaited<ReturnType<typeof startFullWallet>>, ids: string[]): Promise<void> {
  for (const id of ids) {
    let last: unknown;
    await until(
      async () => {
        last = (await w.call('GET', `/wallet/v1/submissions/${id}`)).json;
        return (last as { status?: string }).status === 'committed';
      },
      60_000,
      `${id} to commit`,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; last seen: ${JSON.stringify(last)}`);
    });
  }
}

async function onboard(w: Awaited<ReturnType<typeof startFullWallet>>, hint: string): Promise<string> {
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  return (
    await w.call('POST', '/wallet/v1/parties', { keyFingerprint: key.json.fingerprint, partyHint: hint })
  ).json.partyId as string;
}

describe('Redis Cluster', () => {
  let cluster: Topology;
  let sandbox: Sandbox;
  let w: Awaited<ReturnType<typeof startFullWallet>>;
  beforeAll(async () => {
    cluster = await startCluster();
    sandbox = await startLedger();
    const nodes = cluster.nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
    w = await startFullWallet(
      sandbox,
      walletConfig(`redis://127.0.0.1:${cluster.nodes[0]?.port}`, {
        REDIS_CLUSTER_NODES: nodes,
        REDIS_MIN_REPLICAS_ACK: '1',
        REDIS_WAIT_TIMEOUT_MS: '2000',
      }),
    );
  }, 90_000);
  afterAll(async () => {
    await w?.wallet.close();
    await sandbox?.close();
    await cluster?.stop();
  });

  it('keeps every key in one slot, runs the scripts, and commits each submission once', async () => {
    const party = await onboard(w, 'clustered');
    const subs = await load(w, party, 12);
    await allCommitted(
      w,
      subs.map((s) => s.id),
    );
    const onLedger = await ledgerCommandIds(w.client, party);
    expect(onLedger.sort()).toEqual(subs.map((s) => s.commandId).sort());

    const prefix = w.wallet.store.prefix;
    expect(prefix).toMatch(/^\{e2e-[0-9a-f]+\}/);
    // Every key of the deployment, on whichever node holds it, hashes to the tag's slot.
    const keys: string[] = [];
    for (const n of cluster.nodes) {
      const c = new Redis({ port: n.port, host: '127.0.0.1' });
      const role = await c.role();
      if (role[0] === 'master') keys.push(...(await c.keys(`${prefix.replace(/:$/, '')}*`)));
      c.disconnect();
    }
    expect(keys.some((k) => k.includes(':bull:'))).toBe(true);
    expect(keys.some((k) => k.includes('sub:'))).toBe(true);
    const probe = new Redis({ port: cluster.nodes[0]?.port, host: '127.0.0.1' });
    const slots = new Set<number>();
    for (const k of keys) slots.add(Number(await probe.cluster('KEYSLOT', k)));
    probe.disconnect();
    expect(slots.size).toBe(1);
  }, 120_000);
});

describe('Redis Sentinel', () => {
  let group: SentinelGroup;
  let sandbox: Sandbox;
  let w: Awaited<ReturnType<typeof startFullWallet>>;
  beforeAll(async () => {
    group = await startSentinelGroup();
    sandbox = await startLedger();
    w = await startFullWallet(
      sandbox,
      walletConfig(`redis://127.0.0.1:${group.master.port}`, {
        REDIS_SENTINELS: group.sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
        REDIS_SENTINEL_NAME: group.name,
        REDIS_MIN_REPLICAS_ACK: '1',
        REDIS_WAIT_TIMEOUT_MS: '1000',
        // A job the failover orphaned in `active` runs again once its lock expires (default: twice the ledger
        // timeout, 65 s) and the stalled check sees it (5 s): a short lock keeps that inside this test's minute.
        WORKER_LOCK_DURATION_MS: '10000',
      }),
    );
  }, 90_000);
  // The wallet's shutdown waits for its queue connections to settle after the failover: slow on a loaded machine.
  afterAll(async () => {
    await w?.wallet.close();
    await sandbox?.close();
    await group?.stop();
  }, 120_000);

  it('loses no 202 when the master is SIGKILLed mid-load, and commits each once', async () => {
    const party = await onboard(w, 'sentinel');
    const subs = await load(w, party, 30, async (accepted) => {
      if (accepted === 10) await stopRedisProcess(group.master, 'SIGKILL');
    });
    expect(subs).toHaveLength(30);
    // A replica was promoted.
    const s = new Redis({ port: group.sentinels[0]?.port, host: '127.0.0.1' });
    const [, port] = (await s.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', group.name)) as [string, string];
    s.disconnect();
    expect(Number(port)).not.toBe(group.master.port);
    expect(group.replicas.map((r) => r.port)).toContain(Number(port));
    // Every 202 is still there, and each commits exactly once.
    await allCommitted(
      w,
      subs.map((x) => x.id),
    );
    const onLedger = await ledgerCommandIds(w.client, party);
    expect(onLedger.sort()).toEqual(subs.map((x) => x.commandId).sort());
  }, 180_000);
});
