// A 202 that survives failover (issue 13, item 2): with REDIS_MIN_REPLICAS_ACK a submission is only accepted once
// a replica acknowledged its record (WAIT on the store's connection). A replica that does not answer (SIGSTOPped)
// makes the accept a 503; the retry with the same Idempotency-Key, once it is back, gives the same record, and it
// commits exactly once.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Sandbox } from '@quill/sandbox';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/auth/index.ts';
import { replication } from '../../../src/redis/index.ts';
import { freePort } from '../../support/redis-global-setup.ts';
import { type RedisProcess, startRedisProcess, stopRedisProcess } from '../../support/redis-process.ts';
import { tempDir } from '../../support/tmp.ts';
import {
  noteCommand,
  prepareOn,
  SECRET,
  startFullWallet,
  startLedger,
  walletConfig,
} from '../../support/wallet.ts';

let master: RedisProcess;
let replica: RedisProcess;
let replicaConn: Redis;
let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startFullWallet>>;
let party = '';
let token = '';

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  master = await startRedisProcess(await freePort(), [
    '--appendonly',
    'yes',
    '--appendfsync',
    'everysec',
    '--dir',
    tempDir('quill-replicas-'),
  ]);
  replica = await startRedisProcess(await freePort(), ['--replicaof', '127.0.0.1', String(master.port)]);
  replicaConn = new Redis(`redis://127.0.0.1:${replica.port}`);
  await until(
    async () => (await replicaConn.info('replication')).includes('master_link_status:up'),
    15_000,
    'the replica',
  );
  sandbox = await startLedger();
  w = await startFullWallet(
    sandbox,
    walletConfig(`redis://127.0.0.1:${master.port}`, {
      REDIS_MIN_REPLICAS_ACK: '1',
      REDIS_WAIT_TIMEOUT_MS: '300',
    }),
  );
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  party = (
    await w.call('POST', '/wallet/v1/parties', { keyFingerprint: key.json.fingerprint, partyHint: 'durable' })
  ).json.partyId as string;
  token = await issueToken({ secret: SECRET, role: 'submit', party, ttlSeconds: 600, subject: 'durable' });
}, 60_000);

afterAll(async () => {
  if (replica) replica.child.kill('SIGCONT');
  replicaConn?.disconnect();
  await w?.wallet.close();
  await sandbox?.close();
  if (replica) await stopRedisProcess(replica);
  if (master) await stopRedisProcess(master);
});

async function submit(body: unknown, idempotencyKey: string) {
  const res = await fetch(`${w.wallet.url}/wallet/v1/submissions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
    },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    json: (await res.json()) as { id?: string; error?: { code: string; message: string } },
  };
}

describe('REDIS_MIN_REPLICAS_ACK', () => {
  it('accepts once a replica holds the record; a silent replica is a 503, and the retry gives the same record', async () => {
    const first = await submit(await prepareOn(w.client, party, noteCommand(party)), randomUUID());
    expect(first.status).toBe(202);
    // The replica already has it: WAIT returned before the answer did.
    expect(await replicaConn.exists(w.wallet.store.keys.record(first.json.id as string))).toBe(1);

    replica.child.kill('SIGSTOP');
    const body = await prepareOn(w.client, party, noteCommand(party));
    const key = randomUUID();
    const refused = await submit(body, key);
    expect(refused.status).toBe(503);
    expect(refused.json.error?.code).toBe('UNAVAILABLE');

    replica.child.kill('SIGCONT');
    await until(
      async () => (await submit(body, key)).status !== 503,
      15_000,
      'the replica to acknowledge again',
    );
    const again = await submit(body, key);
    expect([200, 202]).toContain(again.status);
    const list = await w.call('GET', `/wallet/v1/submissions?party=${encodeURIComponent(party)}`);
    const items = list.json.items as { id: string; commandId: string }[];
    expect(items.filter((i) => i.id === again.json.id)).toHaveLength(1);
    expect(items).toHaveLength(2);
    for (const id of [first.json.id, again.json.id]) {
      await until(
        async () => (await w.call('GET', `/wallet/v1/submissions/${id}`)).json.status === 'committed',
        30_000,
        `${id} to commit`,
      );
    }
    // Exactly once on the ledger: one transaction per command id.
    const commandIds = items.map((i) => i.commandId);
    const updates = await w.client.updatesFlats(
      {
        beginExclusive: 0,
        endInclusive: await w.client.ledgerEndOffset(),
        updateFormat: {
          includeTransactions: {
            eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false },
            transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
          },
        },
      },
      { limit: 1000 },
    );
    const seen = updates
      .map(
        (u) => (u.update as { Transaction?: { value: { commandId: string } } }).Transaction?.value.commandId,
      )
      .filter((c) => c && commandIds.includes(c));
    expect(seen.sort()).toEqual([...commandIds].sort());
  }, 90_000);

  it('a reconnect between the write and its WAIT is a 503, never an acknowledgement from another session', async () => {
    // After a failover the client reconnects to the new master, where WAIT counts no write of this connection
    // and answers at once: the write itself may be on the lost master only.
    const conn = new Redis(`redis://127.0.0.1:${master.port}`);
    try {
      await conn.ping();
      const durable = replication(conn, 'replication-test', { replicas: 1, timeoutMs: 500 });
      const mark = await durable.mark();
      await conn.set('replication-test:a', '1');
      const back = once(conn, 'ready');
      conn.disconnect(true);
      await back;
      await expect(durable.confirm(mark)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      // The same sequence on one session confirms.
      const again = await durable.mark();
      await conn.set('replication-test:b', '1');
      await expect(durable.confirm(again)).resolves.toBeUndefined();
    } finally {
      conn.disconnect();
    }
  });
});
