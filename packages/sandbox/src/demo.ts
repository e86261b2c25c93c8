/**
 * `--demo`: users, parties, packages vetted on several participants and synchronizers, and some coin
 * history (taps, a mint, a transfer, an aborted and an accepted transfer instruction). Both demo parties also hold
 * the registries' instruments (Amulet from the DSO, USDQ from the registrar), and bob takes USDQ in one step
 * (a pre-approval).
 */
import { COIN_MODULE, COIN_PACKAGE } from './coin.ts';
import { mint, submitInternal } from './internal.ts';
import { field, text } from './lfjson.ts';
import { grantPreapproval, mintHolding } from './registry/bootstrap.ts';
import {
  qualifiedId,
  type SandboxState,
  type SandboxStateOptions,
  type TransactionUpdate,
} from './state/index.ts';

export function demoLedgerOptions(): SandboxStateOptions {
  return {
    synchronizers: [
      { alias: 'global', id: qualifiedId('global-domain') },
      { alias: 'private', id: qualifiedId('private-synchronizer') },
    ],
    otherParticipants: [qualifiedId('participant2'), qualifiedId('participant3')],
  };
}

const tid = (entity: string) => `#${COIN_PACKAGE}:${COIN_MODULE}:${entity}`;

function created(tx: TransactionUpdate, entity: string, owner?: string): string {
  const n = tx.nodes.find(
    (x) =>
      x.kind === 'create' &&
      x.contract.templateId.endsWith(`:${entity}`) &&
      (owner === undefined || text(field(x.contract.argument, 'owner')) === owner),
  );
  return n?.contract.contractId ?? '';
}

function exercise(
  state: SandboxState,
  actAs: string,
  entity: string,
  contractId: string,
  choice: string,
  arg: unknown,
) {
  return submitInternal(
    state,
    [{ ExerciseCommand: { templateId: tid(entity), contractId, choice, choiceArgument: arg } }],
    [actAs],
  );
}

export function runDemo(state: SandboxState): void {
  const alice = state.allocateLocalParty('alice').partyId;
  const bob = state.allocateLocalParty('bob').partyId;
  state.users.create({ id: 'alice', primaryParty: alice }, [{ kind: 'CanActAs', party: alice }]);
  state.users.create({ id: 'bob', primaryParty: bob }, [{ kind: 'CanActAs', party: bob }]);
  const participants = [state.participantId, ...state.otherParticipants];
  const day = 86_400_000;
  for (const [name, version] of [
    ['demo-app', '1.0.0'],
    ['demo-app', '2.0.0'],
    ['token-holding', '1.0.0'],
  ] as const) {
    const p = state.packages.upload(name, version);
    participants.forEach((participant, i) => {
      for (const s of state.synchronizers.slice(0, i === 2 ? 1 : undefined)) {
        state.packages.vet(participant, s.id, {
          packageId: p.packageId,
          validFrom: new Date(Date.now() - 30 * day).toISOString(),
          validUntil:
            version === '1.0.0' && name === 'demo-app'
              ? new Date(Date.now() + 90 * day).toISOString()
              : undefined,
        });
      }
    });
  }
  const rules = state.coinRules ?? '';
  const tap = (owner: string, amount: string) =>
    exercise(state, owner, 'CoinRules', rules, 'CoinRules_DevNet_Tap', { receiver: owner, amount });
  const aliceTap = created(tap(alice, '1000.0000000000'), 'Holding');
  const bobTap = created(tap(bob, '500.0000000000'), 'Holding');
  mint(state, alice, '250.0000000000');
  const transfer = exercise(state, alice, 'Holding', aliceTap, 'Holding_Transfer', {
    receiver: bob,
    amount: '100.0000000000',
  });
  const aliceChange = created(transfer, 'Holding', alice);
  const offer = exercise(state, alice, 'Holding', aliceChange, 'Holding_CreateTransferInstruction', {
    receiver: bob,
    amount: '50.0000000000',
    description: 'demo: withdrawn later',
  });
  exercise(
    state,
    alice,
    'TransferInstruction',
    created(offer, 'TransferInstruction'),
    'TransferInstruction_Withdraw',
    {},
  );
  const gift = exercise(state, bob, 'Holding', bobTap, 'Holding_CreateTransferInstruction', {
    receiver: alice,
    amount: '20.0000000000',
  });
  exercise(
    state,
    alice,
    'TransferInstruction',
    created(gift, 'TransferInstruction'),
    'TransferInstruction_Accept',
    {},
  );
  mintHolding(state, 'amulet', alice, '1000.0000000000');
  mintHolding(state, 'usdq', alice, '500.0000000000');
  mintHolding(state, 'amulet', bob, '200.0000000000');
  mintHolding(state, 'usdq', bob, '100.0000000000');
  grantPreapproval(state, 'usdq', bob);
}
