// Issue 27's headline, end to end on the sandbox's registries over real HTTP and Redis: a rule "amount > 100 of
// Amulet needs 2 approvals" holds a 1,000,000 TransferFactory_Transfer (the amount is in `transfer.amount`, read
// from the holdings it consumes and creates) for approval, with one sentence saying what it does; a 50 transfer
// passes; a 1,000,000 transfer of the other registry's instrument does not count against the Amulet limit.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TRANSFER_FACTORY_INTERFACE } from '@quill/canton/token';
import { mintHolding, type Sandbox, type SandboxRegistry } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { tempDir } from '../../support/tmp.ts';
import { LEDGER_USER, startFullWallet, startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startFullWallet>>;
let alice: string;
let bob: string;

beforeAll(async () => {
  sandbox = await startLedger();
  const { amulet } = sandbox.registries;
  const policy = join(tempDir('quill-token-policy-'), 'policy.yaml');
  writeFileSync(
    policy,
    [
      'default: allow',
      'rules:',
      '  - name: big-amulet',
      `    match: { instrument: { admin: "${amulet.admin}", id: Amulet }, amount: { gt: "100" } }`,
      '    action: approve',
      '    quorum: 2',
      '',
    ].join('\n'),
  );
  w = await startFullWallet(sandbox, walletConfig(inject('redisUrl'), { POLICY_FILE: policy }));
  const onboard = async (hint: string) => {
    const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
    return (
      await w.call('POST', '/wallet/v1/parties', { keyFingerprint: key.json.fingerprint, partyHint: hint })
    ).json.partyId as string;
  };
  alice = await onboard('alice');
  bob = await onboard('bob');
}, 60_000);
afterAll(async () => {
  await w?.wallet.close();
  await sandbox?.close();
});

const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

/** As a wallet does it: the registry's factory and context, the ledger's prepare, then Quill's submission. */
async function transfer(reg: SandboxRegistry, amount: string, memo: string, wait = 10) {
  const input = mintHolding(
    sandbox.state,
    reg === sandbox.registries.amulet ? 'amulet' : 'usdq',
    alice,
    amount,
  );
  const args = {
    expectedAdmin: reg.admin,
    transfer: {
      sender: alice,
      receiver: bob,
      amount,
      instrumentId: reg.instrumentId,
      requestedAt: iso(-60_000),
      executeBefore: iso(3_600_000),
      inputHoldingCids: [input],
      meta: { values: { 'splice.lfdecentralizedtrust.org/reason': memo } },
    },
    extraArgs: { context: { values: {} } as unknown, meta: { values: {} } },
  };
  const res = await fetch(`${reg.registryUrl}/registry/transfer-instruction/v1/transfer-factory`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ choiceArguments: args, excludeDebugFields: true }),
  });
  expect(res.status).toBe(200);
  const factory = (await res.json()) as {
    factoryId: string;
    choiceContext: { choiceContextData: unknown; disclosedContracts: unknown[] };
  };
  args.extraArgs.context = factory.choiceContext.choiceContextData;
  const prepared = await w.client.prepare({
    userId: LEDGER_USER,
    commandId: randomUUID(),
    actAs: [alice],
    synchronizerId: '',
    packageIdSelectionPreference: [],
    disclosedContracts: factory.choiceContext.disclosedContracts,
    commands: [
      {
        ExerciseCommand: {
          templateId: TRANSFER_FACTORY_INTERFACE,
          contractId: factory.factoryId,
          choice: 'TransferFactory_Transfer',
          choiceArgument: args,
        },
      },
    ],
  } as never);
  return w.call('POST', `/wallet/v1/submissions?wait=${wait}`, {
    preparedTransaction: prepared.preparedTransaction,
    hashingSchemeVersion: prepared.hashingSchemeVersion,
    party: alice,
  });
}

describe('the policy on token-standard transfers', () => {
  it('holds a 1,000,000 Amulet transfer for 2 approvals, saying what it does', async () => {
    const { amulet } = sandbox.registries;
    const r = await transfer(amulet, '1000000.0000000000', 'invoice 42', 0);
    expect(r.status).toBe(202);
    expect(r.json).toMatchObject({
      status: 'awaiting_approval',
      approval: { rule: 'big-amulet', quorum: 2 },
      outflows: [{ instrument: amulet.instrumentId, amount: '1000000' }],
    });
    const [sentence] = (r.json.approval as { summary: string[] }).summary;
    expect(sentence).toMatch(
      /^alice::\S+ offers 1000000\.0 Amulet \(admin DSO::\S+\) to bob::\S+, memo 'invoice 42', expires /,
    );
    const preview = await w.call('GET', `/wallet/v1/submissions/${r.json.id}/preview`);
    expect(preview.json.summary).toEqual([sentence]);
    expect((preview.json.tree as string[])[0]).toMatch(
      /^\[0\] exercise TransferFactory_Transfer on #splice-amulet:Splice\.ExternalPartyAmuletRules:ExternalPartyAmuletRules via Splice\.Api\.Token\.TransferInstructionV1:TransferFactory/,
    );
  });

  it('lets a 50 Amulet transfer through, and a 1,000,000 USDQ transfer does not count against Amulet', async () => {
    const small = await transfer(sandbox.registries.amulet, '50.0000000000', 'small');
    expect(small.json).toMatchObject({ status: 'committed', outflows: [{ amount: '50' }] });
    const usdq = await transfer(sandbox.registries.usdq, '1000000.0000000000', 'other registry');
    expect(usdq.json).toMatchObject({
      status: 'committed',
      outflows: [{ instrument: sandbox.registries.usdq.instrumentId, amount: '1000000' }],
    });
  });
});
