// End to end: onboard a party through the API, prepare a coin transfer on the sandbox, submit it through
// Quill, and find the committed transaction by update id — Ed25519 and ECDSA, hashing schemes V2 and V3.

import { mint, type Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { referenceHashHex } from '../../support/oracle.ts';
import {
  coinTemplate,
  prepareOn,
  type Scheme,
  startFullWallet,
  startLedger,
  tapCommand,
  walletConfig,
} from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startFullWallet>>;
let bob: string;

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startFullWallet(sandbox, walletConfig(inject('redisUrl')));
  bob = sandbox.state.allocateLocalParty('bob').partyId;
});
afterAll(async () => {
  await w.wallet.close();
  await sandbox.close();
});

interface CreatedEvent {
  CreatedEvent?: {
    contractId: string;
    templateId: string;
    createArgument: { owner?: string; amount?: string };
  };
}

const cases: [string, 'ed25519' | 'p256' | 'secp256k1' | 'p384', Scheme][] = [
  ['Ed25519, V2', 'ed25519', 'HASHING_SCHEME_VERSION_V2'],
  ['Ed25519, V3', 'ed25519', 'HASHING_SCHEME_VERSION_V3'],
  ['ECDSA P-256, V2', 'p256', 'HASHING_SCHEME_VERSION_V2'],
  ['ECDSA P-256, V3', 'p256', 'HASHING_SCHEME_VERSION_V3'],
  ['ECDSA secp256k1, V3', 'secp256k1', 'HASHING_SCHEME_VERSION_V3'],
];

describe('a coin transfer through Quill', () => {
  it.each(cases)(
    '%s: onboard, fund, transfer, committed once, found by update id',
    async (_name, algorithm, scheme) => {
      const key = await w.call('POST', '/wallet/v1/keys', { algorithm });
      expect(key.status).toBe(201);
      const onboarded = await w.call('POST', '/wallet/v1/parties', {
        keyFingerprint: key.json.fingerprint,
        partyHint: `holder-${algorithm}-${scheme.slice(-2)}`,
      });
      expect(onboarded.status).toBe(201);
      const party = onboarded.json.partyId as string;

      // Fund the party (the operator mints on the sandbox), then the party transfers through Quill.
      const minted = mint(sandbox.state, party, '100.0000000000');
      const holding = minted.nodes.find(
        (n) => n.kind === 'create' && n.contract.templateId.endsWith(':Holding'),
      );
      expect(holding).toBeTruthy();

      const transfer = await prepareOn(
        w.client,
        party,
        {
          ExerciseCommand: {
            templateId: coinTemplate('Holding'),
            contractId: holding?.kind === 'create' ? holding.contract.contractId : '',
            choice: 'Holding_Transfer',
            choiceArgument: { receiver: bob, amount: '40.0000000000' },
          },
        },
        scheme,
      );
      const sent = await w.call('POST', '/wallet/v1/submissions?wait=20', transfer);
      expect(sent.status).toBe(200);
      const rec = sent.json as {
        updateId: string;
        commandId: string;
        preparedTransactionHash: string;
        attempts: { submissionId: string }[];
      };
      expect(sent.json).toMatchObject({
        status: 'committed',
        party,
        hashingSchemeVersion: scheme,
        error: null,
      });
      // Checked against an independent hasher (the sandbox hashes with Quill's own code); V3 has none.
      const reference = await referenceHashHex(transfer.preparedTransaction, scheme);
      if (reference !== undefined) expect(rec.preparedTransactionHash).toBe(reference);
      expect(rec.attempts[0]?.submissionId).toMatch(/^[0-9a-f-]{36}$/);
      // prepared just now and no max record time: it could commit for the 24 h preparation time tolerance
      const window = Date.parse(String(sent.json.canCommitUntil)) - Date.now();
      expect(window).toBeGreaterThan(86_400_000 - 120_000);
      expect(window).toBeLessThanOrEqual(86_400_000);

      const byUpdate = await w.call(
        'GET',
        `/wallet/v1/updates/${encodeURIComponent(rec.updateId)}`,
        undefined,
        await readToken(party),
      );
      expect(byUpdate.status).toBe(200);
      expect(byUpdate.json.id).toBe(sent.json.id);
      const tx = byUpdate.json.transaction as {
        updateId: string;
        externalTransactionHash: string;
        events: CreatedEvent[];
      };
      expect(tx.updateId).toBe(rec.updateId);
      expect(tx.externalTransactionHash).toBe(rec.preparedTransactionHash);
      const onLedger = await w.client.transactionById({
        updateId: rec.updateId,
        transactionFormat: {
          eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false },
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      } as never);
      expect(onLedger.transaction.externalTransactionHash).toBe(rec.preparedTransactionHash);
      expect(sandbox.state.commits.get(rec.commandId)).toBe(1);
      const owners = tx.events.map((e) => e.CreatedEvent?.createArgument.owner).filter(Boolean);
      expect(owners).toContain(party);

      // the same request again: the same record, nothing executed twice
      const again = await w.call('POST', '/wallet/v1/submissions', transfer);
      expect(again.json.id).toBe(sent.json.id);
      expect(sandbox.state.commits.get(rec.commandId)).toBe(1);
    },
  );

  it('an external party taps the DevNet faucet (CoinRules_DevNet_Tap) through Quill', async () => {
    const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
    const onboarded = await w.call('POST', '/wallet/v1/parties', {
      keyFingerprint: key.json.fingerprint,
      partyHint: 'tapper',
    });
    const party = onboarded.json.partyId as string;
    const tap = await prepareOn(
      w.client,
      party,
      tapCommand(String(sandbox.state.coinRules), party, '25.0000000000'),
    );
    const sent = await w.call('POST', '/wallet/v1/submissions?wait=20', tap);
    expect(sent.json).toMatchObject({ status: 'committed', party, error: null });
    const events = (sent.json.transaction as { events: CreatedEvent[] }).events;
    const holding = events.find((e) => e.CreatedEvent?.templateId.endsWith(':Holding'));
    expect(holding?.CreatedEvent?.createArgument).toMatchObject({ owner: party, amount: '25.0000000000' });
  });

  it('lists submissions by party and status, and the metrics count them', async () => {
    const list = await w.call('GET', '/wallet/v1/submissions?status=committed&limit=3');
    expect((list.json.items as unknown[]).length).toBe(3);
    expect(list.json.nextCursor).toBeTruthy();
    const next = await w.call(
      'GET',
      `/wallet/v1/submissions?status=committed&limit=3&cursor=${list.json.nextCursor}`,
    );
    expect((next.json.items as unknown[]).length).toBeGreaterThan(0);
    const metrics = await (await fetch(`${w.wallet.url}/metrics`)).text();
    expect(metrics).toMatch(/quill_submissions_committed_total \d+/);
  });
});

async function readToken(party: string): Promise<string> {
  const { issueToken } = await import('../../../src/auth/index.ts');
  const { SECRET } = await import('../../support/wallet.ts');
  return issueToken({ secret: SECRET, role: 'read', party, ttlSeconds: 60 });
}
