// A small but complete transaction (exercise with create/fetch children, a rollback, input contracts).
import { type BuildInput, buildPreparedTransaction, damlValue as V } from '@quill/sandbox/build';

export const alice = 'alice::1220aaaa';
export const bob = 'bob::1220bbbb';
export const cidA = `00${'11'.repeat(32)}ca`;
export const cidB = `00${'22'.repeat(32)}cb`;
export const cidC = `00${'33'.repeat(32)}`;
export const pkg = 'a'.repeat(64);

export function sampleInput(overrides: Partial<BuildInput> = {}): BuildInput {
  return {
    seed: new Uint8Array(32).fill(7),
    actAs: [alice],
    commandId: 'cmd-1',
    synchronizerId: 'global-domain::1220cccc',
    transactionUuid: '4c6471d3-4e09-49dd-addf-6cd90e19c583',
    preparationTime: 1729788226000000n,
    maxRecordTime: 1729788286000000n,
    inputContracts: [
      {
        contract: {
          contractId: cidA,
          packageName: 'coin',
          templateId: `${pkg}:Coin:Coin`,
          argument: V.record({ owner: V.party(alice), amount: V.numeric('10.0000000000') }),
          signatories: [alice],
        },
        createdAt: '2024-10-24T16:43:46Z',
      },
    ],
    roots: [
      {
        kind: 'exercise',
        contractId: cidA,
        packageName: 'coin',
        templateId: `${pkg}:Coin:Coin`,
        choice: 'Transfer',
        choiceArgument: V.record({ newOwner: V.party(bob), amount: V.numeric('4.0000000000') }),
        consuming: true,
        actingParties: [alice],
        signatories: [alice],
        result: V.contractId(cidB),
        children: [
          {
            kind: 'create',
            contractId: cidB,
            packageName: 'coin',
            templateId: `${pkg}:Coin:Coin`,
            argument: V.record({ owner: V.party(bob), amount: V.numeric('4.0000000000') }),
            signatories: [bob, alice],
          },
          {
            kind: 'fetch',
            contractId: cidA,
            packageName: 'coin',
            templateId: `${pkg}:Coin:Coin`,
            signatories: [alice],
            actingParties: [alice],
          },
        ],
      },
      {
        kind: 'rollback',
        children: [
          {
            kind: 'create',
            contractId: cidC,
            packageName: 'coin',
            templateId: `${pkg}:Coin:Coin`,
            argument: V.record({ owner: V.party(alice), amount: V.numeric('1.0') }),
            signatories: [alice],
          },
        ],
      },
    ],
    ...overrides,
  };
}

export const sampleTx = (overrides: Partial<BuildInput> = {}) =>
  buildPreparedTransaction(sampleInput(overrides));
