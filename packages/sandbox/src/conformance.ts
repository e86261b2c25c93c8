/**
 * Model conformance of a submitted transaction, as confirming participants check it: the signed bytes must
 * describe what the templates would do. Input contracts must equal the active ones; root creates need the
 * authority of the acting parties (so nobody signs a Holding into existence); each root exercise is replayed at
 * the ledger effective time with the transaction's own new contract ids and must yield the same tree node for node
 * (creates, fetches, nested exercises, arguments and results), reading only contracts the transaction lists as
 * inputs.
 */
import type {
  Create,
  Identifier,
  Node,
  PreparedTransaction,
  Value,
  validatePreparedTransaction,
} from '@quill/canton/transaction';
import type { BuildNode } from './build/index.ts';
import { SandboxError } from './errors.ts';
import { replayExercise } from './interpret.ts';
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
  JSON.stringify([...new Set(a)].sort()) === JSON.stringify([...new Set(b)].sort());
const json = (v: Value | undefined) => JSON.stringify(valueToJson(v));
const idText = (t: Identifier | undefined) => `${t?.packageId}:${t?.moduleName}:${t?.entityName}`;
const tid = (c: Create) => idText(c.templateId);

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

/** The ids of the contracts created under a node, in pre-order. */
function createdUnder(index: TransactionIndex, id: string, out: string[] = []): string[] {
  const t = index.nodes.get(id)!.node.nodeType;
  if (t.oneofKind === 'create') out.push(t.create.contractId);
  const kids =
    t.oneofKind === 'exercise' ? t.exercise.children : t.oneofKind === 'rollback' ? t.rollback.children : [];
  for (const k of kids) createdUnder(index, k, out);
  return out;
}

/** Whether a submitted node is the node the replay produced (recursively); returns the first difference. */
function differs(index: TransactionIndex, id: string, want: BuildNode): string | undefined {
  const node: Node['nodeType'] = index.nodes.get(id)!.node.nodeType;
  if (node.oneofKind !== want.kind) return `node ${id} is a ${node.oneofKind}, expected a ${want.kind}`;
  if (node.oneofKind === 'create' && want.kind === 'create') {
    const c = node.create;
    const ok =
      c.contractId === want.contractId &&
      tid(c) === String(want.templateId) &&
      json(c.argument) === json(want.argument) &&
      same(c.signatories, want.signatories) &&
      same(c.stakeholders, want.stakeholders ?? want.signatories);
    return ok ? undefined : `create ${id} differs from what the choice creates`;
  }
  if (node.oneofKind === 'fetch' && want.kind === 'fetch') {
    const f = node.fetch;
    const ok =
      f.contractId === want.contractId &&
      (f.interfaceId ? idText(f.interfaceId) : undefined) === want.interfaceId;
    return ok ? undefined : `fetch ${id} differs from what the choice reads`;
  }
  if (node.oneofKind === 'exercise' && want.kind === 'exercise') {
    const e = node.exercise;
    if (e.contractId !== want.contractId || e.choiceId !== want.choice)
      return `exercise ${id} is not ${want.choice} on ${want.contractId}`;
    if ((e.interfaceId ? idText(e.interfaceId) : undefined) !== want.interfaceId)
      return `exercise ${id} names another interface`;
    if (e.consuming !== want.consuming) return `${e.choiceId} consumption differs`;
    if (json(e.chosenValue) !== json(want.choiceArgument)) return `${e.choiceId} argument differs`;
    if (want.result !== undefined && json(e.exerciseResult) !== json(want.result))
      return `${e.choiceId} result differs`;
    const kids = want.children ?? [];
    if (e.children.length !== kids.length) return `${e.choiceId} has unexpected consequences`;
    for (let i = 0; i < kids.length; i++) {
      const d = differs(index, e.children[i]!, kids[i]!);
      if (d) return d;
    }
    return undefined;
  }
  return `node ${id} cannot be checked`;
}

export function checkConformance(
  state: SandboxState,
  tx: PreparedTransaction,
  index: TransactionIndex,
  ledgerTime: bigint = state.nowMicros(),
): void {
  const meta = tx.metadata!;
  const actAs = meta.submitterInfo?.actAs ?? [];
  const inputIds = new Set<string>();
  for (const ic of meta.inputContracts) {
    if (ic.contract.oneofKind !== 'v1') continue;
    inputIds.add(ic.contract.v1.contractId);
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
      const iface = e.interfaceId
        ? `#${state.packages.get(e.interfaceId.packageId)?.packageName ?? e.interfaceId.packageId}:${e.interfaceId.moduleName}:${e.interfaceId.entityName}`
        : undefined;
      let replay: ReturnType<typeof replayExercise>;
      try {
        replay = replayExercise(
          state,
          contract,
          { choice: e.choiceId, arg: valueToJson(e.chosenValue), iface },
          actAs,
          ledgerTime,
          createdUnder(index, root),
        );
      } catch (err) {
        throw nonConformant(
          `replaying ${e.choiceId} failed: ${err instanceof SandboxError ? err.cause_ : 'error'}`,
        );
      }
      const unlisted = replay.inputs.filter((c) => !local.has(c.contractId) && !inputIds.has(c.contractId));
      if (unlisted.length > 0)
        throw nonConformant(
          `${e.choiceId} uses contracts missing from the input contracts: ${unlisted.map((c) => c.contractId).join(', ')}`,
        );
      const d = differs(index, root, replay.node);
      if (d) throw nonConformant(d);
    } else {
      throw nonConformant(`unsupported root node ${node.oneofKind ?? 'unknown'}`);
    }
  }
}
