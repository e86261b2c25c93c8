/**
 * Model conformance of a submitted transaction, as confirming participants check it: the signed bytes must
 * describe what the templates would do. Input contracts must equal the active ones; root creates need the
 * authority of the acting parties (so nobody signs a Holding into existence); each exercise is replayed and
 * must consume as the choice does and create exactly the contracts it creates.
 */
import type {
  Create,
  PreparedTransaction,
  Value,
  validatePreparedTransaction,
} from '@quill/canton/transaction';
import { replayChoice } from './coin.ts';
import { SandboxError } from './errors.ts';
import { valueToJson } from './lfjson.ts';
import type { Contract, SandboxState } from './state/index.ts';

function nonConformant(why: string): SandboxError {
  return new SandboxError(
    'LOCAL_VERDICT_FAILED_MODEL_CONFORMANCE_CHECK',
    8,
    `Rejected transaction due to a failed model conformance check: ${why}`,
    {},
    [],
    false, // a LocalRejectError: definite_answer "false", as every local verdict
  );
}

const same = (a: readonly string[], b: readonly string[]) =>
  JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
const json = (v: Value | undefined) => JSON.stringify(valueToJson(v));
const tid = (c: Create) =>
  `${c.templateId?.packageId}:${c.templateId?.moduleName}:${c.templateId?.entityName}`;

function sameContract(c: Create, stored: Contract): boolean {
  return (
    tid(c) === stored.templateId &&
    c.packageName === stored.packageName &&
    json(c.argument) === json(stored.argument) &&
    same(c.signatories, stored.signatories) &&
    same(c.stakeholders, stored.stakeholders)
  );
}

/** The contract a transaction-local create makes (for exercises on it later in the same transaction). */
function localContract(c: Create, synchronizerId: string): Contract {
  const t = c.templateId!;
  return {
    contractId: c.contractId,
    templateId: tid(c),
    packageId: t.packageId,
    packageName: c.packageName,
    argument: c.argument!,
    signatories: c.signatories,
    stakeholders: c.stakeholders,
    createdAt: '',
    createdAtMicros: 0n,
    createdOffset: 0,
    createdNodeId: 0,
    synchronizerId,
    reassignmentCounter: 0,
  };
}

type TransactionIndex = ReturnType<typeof validatePreparedTransaction>;

export function checkConformance(
  state: SandboxState,
  tx: PreparedTransaction,
  index: TransactionIndex,
): void {
  const meta = tx.metadata!;
  const actAs = meta.submitterInfo?.actAs ?? [];
  for (const ic of meta.inputContracts) {
    if (ic.contract.oneofKind !== 'v1') continue;
    const stored = state.contracts.get(ic.contract.v1.contractId);
    if (stored && !sameContract(ic.contract.v1, stored)) {
      throw nonConformant(`input contract ${ic.contract.v1.contractId} differs from the active contract`);
    }
  }
  const local = new Map<string, Contract>();
  for (const root of tx.transaction!.roots) {
    const node = index.nodes.get(root)!.node.nodeType;
    if (node.oneofKind === 'create') {
      const missing = node.create.signatories.filter((p) => !actAs.includes(p));
      if (missing.length > 0)
        throw nonConformant(`create of ${tid(node.create)} lacks the authority of ${missing.join(', ')}`);
      local.set(node.create.contractId, localContract(node.create, meta.synchronizerId));
    } else if (node.oneofKind === 'exercise') {
      const e = node.exercise;
      const contract = local.get(e.contractId) ?? state.contracts.get(e.contractId);
      if (!contract) continue; // reported as an inactive contract by the caller
      let replay: ReturnType<typeof replayChoice>;
      try {
        replay = replayChoice(state, contract, e.choiceId, valueToJson(e.chosenValue), actAs);
      } catch (err) {
        throw nonConformant(
          `replaying ${e.choiceId} failed: ${err instanceof SandboxError ? err.cause_ : 'error'}`,
        );
      }
      if (replay.consuming !== e.consuming) throw nonConformant(`${e.choiceId} consumption differs`);
      const children = e.children.map((id) => index.nodes.get(id)!.node.nodeType);
      if (children.length !== replay.children.length)
        throw nonConformant(`${e.choiceId} has unexpected consequences`);
      children.forEach((child, i) => {
        const want = replay.children[i]!;
        const ok =
          child.oneofKind === 'create' &&
          want.kind === 'create' &&
          tid(child.create) === String(want.templateId) &&
          json(child.create.argument) === json(want.argument) &&
          same(child.create.signatories, want.signatories) &&
          same(child.create.stakeholders, want.stakeholders ?? want.signatories);
        if (!ok)
          throw nonConformant(`consequence ${i} of ${e.choiceId} differs from what the choice creates`);
      });
    } else {
      throw nonConformant(`unsupported root node ${node.oneofKind ?? 'unknown'}`);
    }
  }
}
