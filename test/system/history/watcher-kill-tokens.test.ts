// The watcher SIGKILLed at random while two processes compete for its lease, on a ledger of token movements
// (demo coin holdings arriving and leaving, USDQ transfer instructions arriving): the party's holdings end as the
// ledger has them, its pending instructions are listed once each, and each instruction is one transfer.incoming.
import { randomBytes } from 'node:crypto';
import { LedgerClient } from '@quill/canton/ledger';
import { META_KEYS, TRANSFER_FACTORY_INTERFACE } from '@quill/canton/token';
import { COIN_MODULE, COIN_PACKAGE, mint, type Sandbox, startSandbox, submitInternal } from '@quill/sandbox';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { HistoryIndex } from '../../../src/history/index.ts';
import { sumDecimals } from '../../../src/policy/decimal.ts';
import { eventsOfType } from '../../support/events.ts';
import { testRedis } from '../../support/records.ts';
import { watcherProcesses } from '../../support/watcher-processes.ts';

let sb: Sandbox;
let redis: Redis;
const watchers = watcherProcesses();

beforeAll(async () => {
  sb = await startSandbox({ port: 0, scanPort: 0, host: '127.0.0.1', auth: 'none' });
  redis = testRedis();
});
afterAll(async () => {
  watchers.killAll();
  redis.disconnect();
  await sb.close();
});

const watcherProcess = (env: Record<string, string>) => watchers.start(env);

const created = (tx: ReturnType<typeof submitInternal>, suffix: string) =>
  tx.nodes.flatMap((n) =>
    n.kind === 'create' && n.contract.templateId.endsWith(suffix) ? [n.contract.contractId] : [],
  );

it('holdings, instructions and transfer.incoming exactly once with watchers SIGKILLed at random', async () => {
  const alice = sb.state.allocateLocalParty(`alice-${randomBytes(3).toString('hex')}`).partyId;
  const stranger = sb.state.allocateLocalParty('stranger').partyId;
  const reg = sb.state.registries.get('usdq');
  if (!reg) throw new Error('no USDQ registry');
  const registrar = reg.admin;
  const prefix = `wkt-${randomBytes(4).toString('hex')}:`;
  const index = new HistoryIndex(redis, prefix);
  const env = { REDIS_URL: inject('redisUrl'), LEDGER_URL: sb.url, WATCH_PREFIX: prefix, WATCH_PARTY: alice };

  // The stranger's USDQ, spent in offers to alice (each offer's change funds the next).
  let usdq = created(
    submitInternal(
      sb.state,
      [
        {
          CreateCommand: {
            templateId: '#quill-stablecoin:Quill.Stablecoin:Holding',
            createArguments: {
              registrar,
              owner: stranger,
              instrument: { admin: registrar, id: 'USDQ' },
              amount: '100000.0',
              lock: null,
              meta: { values: {} },
            },
          },
        },
      ],
      [registrar, stranger],
    ),
    ':Holding',
  )[0] as string;
  const offers: string[] = [];
  const offer = (n: number) => {
    const now = Date.now();
    const tx = submitInternal(
      sb.state,
      [
        {
          ExerciseCommand: {
            templateId: TRANSFER_FACTORY_INTERFACE,
            contractId: reg.contracts.factory as string,
            choice: 'TransferFactory_Transfer',
            choiceArgument: {
              expectedAdmin: registrar,
              transfer: {
                sender: stranger,
                receiver: alice,
                amount: '1.5',
                instrumentId: { admin: registrar, id: 'USDQ' },
                requestedAt: new Date(now - 60_000).toISOString(),
                executeBefore: new Date(now + 3_600_000).toISOString(),
                inputHoldingCids: [usdq],
                meta: { values: { [META_KEYS.reason]: `offer ${n}` } },
              },
              extraArgs: { context: { values: {} }, meta: { values: {} } },
            },
          },
        },
      ],
      [stranger, registrar],
    );
    const [, change] = created(tx, ':Holding'); // the locked holding, then the change
    usdq = change as string;
    offers.push(created(tx, ':TransferOffer')[0] as string);
  };
  // alice's coin: minted, and every tenth holding sent on to the stranger (so some leave again).
  const expected: string[] = [];
  let step = 0;
  const traffic = () => {
    for (let i = 0; i < 40; i++) {
      step++;
      const m = mint(sb.state, alice, '2.5');
      const cid = m.nodes.find((n) => n.kind === 'create')?.contract.contractId as string;
      if (step % 10 === 0) {
        submitInternal(
          sb.state,
          [
            {
              ExerciseCommand: {
                templateId: `#${COIN_PACKAGE}:${COIN_MODULE}:Holding`,
                contractId: cid,
                choice: 'Holding_Transfer',
                choiceArgument: { receiver: stranger, amount: '1.0' },
              },
            },
          ],
          [alice],
        );
        expected.push('1.5');
      } else expected.push('2.5');
      if (step % 4 === 0) offer(step);
    }
  };

  traffic();
  for (let round = 0; round < 5; round++) {
    const pair = await Promise.all([watcherProcess(env), watcherProcess(env)]);
    const stopAt = Date.now() + 100 + Math.random() * 300;
    while (Date.now() < stopAt) {
      traffic();
      await new Promise((r) => setTimeout(r, 30));
    }
    for (const c of pair) c.kill('SIGKILL'); // mid-step, whatever it was doing
    await Promise.all(
      pair.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
    );
    traffic();
  }
  await watcherProcess(env);
  const end = await new LedgerClient({ baseUrl: sb.url }).ledgerEndOffset();
  const deadline = Date.now() + 60_000;
  while (((await index.checkpoint()) ?? 0) < end) {
    if (Date.now() > deadline)
      throw new Error(`the checkpoint stopped at ${await index.checkpoint()} of ${end}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  const held = await index.holdings(alice);
  expect(held.every((h) => h.instrument.id === 'QuillCoin')).toBe(true);
  expect(held.length).toBe(expected.length);
  expect(sumDecimals(held.map((h) => h.amount))).toBe(sumDecimals(expected));
  const pending = await index.instructions(alice);
  expect(pending.map((t) => t.contractId).sort()).toEqual([...offers].sort());
  const incoming = await eventsOfType(redis, prefix, 'transfer.incoming');
  const ids = incoming.map((e) => (JSON.parse(e.body ?? '{}') as { contractId: string }).contractId);
  expect(ids.sort()).toEqual([...offers].sort()); // each once: nothing to drop
  expect(incoming.every((e) => e.party === alice)).toBe(true);
}, 120_000);
