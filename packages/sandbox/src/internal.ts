/**
 * Commits made by the sandbox itself, without external signatures: the coin rules at start, the operator's
 * mints, demo history and benchmark fills. Uses the same interpretation and commit path as execution.
 */

import { activitiesOf } from './activities.ts';
import type { BuildNode } from './build/index.ts';
import { COIN_MODULE, COIN_PACKAGE, COIN_TEMPLATES, coinTemplate } from './coin.ts';
import { interpret } from './interpret.ts';
import { isoFromMicros } from './lfjson.ts';
import {
  type CommittedNode,
  type Contract,
  newContract,
  type SandboxState,
  type TransactionUpdate,
} from './state/index.ts';
import { trafficCost } from './traffic.ts';

let counter = 0;

/** Pre-order committed nodes from a build tree (node ids 0, 1, … like buildPreparedTransaction assigns). */
function toCommitted(
  state: SandboxState,
  roots: BuildNode[],
  effective: bigint,
  synchronizerId: string,
): CommittedNode[] {
  const out: CommittedNode[] = [];
  const local = new Map<string, Contract>();
  const visit = (b: BuildNode): number => {
    const nodeId = out.length;
    if (b.kind === 'create') {
      const templateId = String(b.templateId);
      const content = {
        contractId: b.contractId,
        templateId,
        packageId: templateId.split(':')[0] ?? '',
        packageName: b.packageName,
        argument: b.argument,
        signatories: [...new Set(b.signatories)].sort(),
        stakeholders: [...new Set(b.stakeholders ?? b.signatories)].sort(),
      };
      const contract = newContract(content, nodeId, effective, synchronizerId);
      local.set(contract.contractId, contract);
      out.push({ kind: 'create', nodeId, contract });
      return nodeId;
    }
    if (b.kind === 'exercise') {
      const contract = local.get(b.contractId) ?? state.contracts.get(b.contractId)!;
      const node: CommittedNode = {
        kind: 'exercise',
        nodeId,
        contract,
        choice: b.choice,
        choiceArgument: b.choiceArgument,
        interfaceId: b.interfaceId === undefined ? undefined : String(b.interfaceId),
        actingParties: [...b.actingParties].sort(),
        consuming: b.consuming,
        lastDescendantNodeId: nodeId,
        result: b.result,
      };
      out.push(node);
      let last = nodeId;
      for (const child of b.children ?? []) last = Math.max(last, visit(child));
      node.lastDescendantNodeId = last;
      return last;
    }
    return nodeId;
  };
  for (const r of roots) visit(r);
  return out;
}

/** Interprets and commits commands for `actAs` (no signatures, no deduplication). */
export function submitInternal(
  state: SandboxState,
  commands: unknown[],
  actAs: string[],
  commandId?: string,
): TransactionUpdate {
  const draft = interpret(state, commands, actAs);
  return commitNodes(state, draft.roots, actAs, commandId ?? ['sandbox-internal-', ++counter].join(''));
}

export function commitNodes(
  state: SandboxState,
  roots: BuildNode[],
  actAs: string[],
  commandId: string,
): TransactionUpdate {
  const now = state.nowMicros();
  const synchronizerId = state.defaultSynchronizer;
  const draft = {
    updateId: state.newUpdateId(),
    commandId,
    workflowId: '',
    userId: 'participant_admin',
    submissionId: commandId,
    actAs,
    effectiveAt: isoFromMicros(now),
    recordTime: isoFromMicros(now),
    synchronizerId,
    nodes: toCommitted(state, roots, now, synchronizerId),
  };
  // No prepared transaction to measure: a fixed size per node stands in for its bytes.
  const paid = { ...draft, paidTrafficCost: trafficCost(draft.nodes.length * 512, 64) };
  return state.commit(paid, undefined, (offset) => activitiesOf(state, paid, offset));
}

/** Operator, `quill-coin` package vetted everywhere, `CoinRules` contract. Idempotent. */
export function bootstrapCoin(state: SandboxState): void {
  if (state.coinRules) return;
  const operator = state.allocateLocalParty('operator').partyId;
  const pkg = state.packages.upload(COIN_PACKAGE, '1.0.0');
  for (const entity of COIN_TEMPLATES) state.packages.addTemplate(COIN_PACKAGE, `${COIN_MODULE}:${entity}`);
  for (const p of [state.participantId, ...state.otherParticipants]) {
    for (const s of state.synchronizers) state.packages.vet(p, s.id, { packageId: pkg.packageId });
  }
  const t = coinTemplate(state, 'CoinRules');
  const rules: BuildNode = {
    kind: 'create',
    contractId: state.newContractId(),
    packageName: t.packageName,
    templateId: t.templateId,
    argument: {
      sum: {
        oneofKind: 'record',
        record: {
          recordId: { packageId: t.packageId, moduleName: COIN_MODULE, entityName: 'CoinRules' },
          fields: [{ label: 'operator', value: { sum: { oneofKind: 'party', party: operator } } }],
        },
      },
    },
    signatories: [operator],
  };
  const tx = commitNodes(state, [rules], [operator], 'quill-sandbox-genesis');
  state.coinRules = tx.nodes[0]?.contract.contractId;
  state.operator = operator;
}

/** The operator mints `amount` (Numeric 10 text) to `owner`. */
export function mint(state: SandboxState, owner: string, amount: string): TransactionUpdate {
  return submitInternal(
    state,
    [
      {
        ExerciseCommand: {
          templateId: `#${COIN_PACKAGE}:${COIN_MODULE}:CoinRules`,
          contractId: state.coinRules,
          choice: 'CoinRules_Mint',
          choiceArgument: { owner, amount },
        },
      },
    ],
    [state.operator ?? ''],
  );
}
