// A structured, human-readable summary of what a signature over a PreparedTransaction authorizes.
import { hashPreparedTransaction } from './hash/index.ts';
import { identifierText, type Json, microsToIso, renderValue } from './render.ts';
import { logicalSynchronizerId } from './synchronizer.ts';
import type { Create, GlobalKeyWithMaintainers, HashingSchemeVersion, PreparedTransaction } from './types.ts';
import { type IndexedNode, validatePreparedTransaction } from './validate.ts';

export interface PreviewKey {
  templateId: string | null;
  packageName: string;
  key: Json;
  maintainers: string[];
}

/** One node; `children` are node ids (the list is flat so any depth stays JSON-safe). */
export interface PreviewNode {
  nodeId: string;
  /** Parent node id, null for a root. */
  parentId: string | null;
  /** 0 for roots. */
  depth: number;
  kind: 'create' | 'exercise' | 'fetch' | 'rollback' | 'queryByKey';
  lfVersion?: string;
  templateId?: string | null;
  packageName?: string;
  contractId?: string;
  interfaceId?: string | null;
  signatories?: string[];
  stakeholders?: string[];
  actingParties?: string[];
  argument?: Json;
  choice?: string;
  consuming?: boolean;
  choiceArgument?: Json;
  choiceObservers?: string[];
  exerciseResult?: Json;
  key?: PreviewKey | null;
  byKey?: boolean;
  exhaustive?: boolean;
  result?: string[];
  children?: string[];
}

export interface PreviewInputContract {
  contractId: string;
  templateId: string | null;
  packageName: string;
  createdAt: string;
  signatories: string[];
  stakeholders: string[];
  argument: Json;
}

/** JSON-serialisable; times are ISO-8601 UTC, Int64/Numeric are strings. */
export interface TransactionPreview {
  hashingSchemeVersion: HashingSchemeVersion;
  hash: string;
  hashBase64: string;
  actAs: string[];
  commandId: string;
  /** As signed: the physical id under protocol version 35. */
  synchronizerId: string;
  /** The logical id, as `/v2/state/connected-synchronizers` lists it. */
  logicalSynchronizerId: string;
  transactionUuid: string;
  mediatorGroup: number;
  preparationTime: string;
  minLedgerEffectiveTime: string | null;
  maxLedgerEffectiveTime: string | null;
  maxRecordTime: string | null;
  /** max record time is part of the signed hash only under V3. */
  maxRecordTimeSigned: boolean;
  transactionVersion: string;
  /** Root node ids, in order. */
  roots: string[];
  /** Every node in execution (pre-)order; follow `children` / `parentId` for the tree. */
  nodes: PreviewNode[];
  nodeCount: number;
  inputContracts: PreviewInputContract[];
  /** Every party named anywhere in the transaction, sorted. */
  parties: string[];
}

function previewKey(k: GlobalKeyWithMaintainers | undefined): PreviewKey | null {
  if (k?.key === undefined) return null;
  return {
    templateId: identifierText(k.key.templateId),
    packageName: k.key.packageName,
    key: renderValue(k.key.key),
    maintainers: [...k.maintainers],
  };
}

function createFields(c: Create) {
  return {
    lfVersion: c.lfVersion,
    templateId: identifierText(c.templateId),
    packageName: c.packageName,
    contractId: c.contractId,
    signatories: [...c.signatories],
    stakeholders: [...c.stakeholders],
    argument: renderValue(c.argument),
    key: previewKey(c.key),
  };
}

type NodeFields = Omit<PreviewNode, 'parentId' | 'depth'>;

function previewNode(n: IndexedNode): NodeFields {
  const t = n.node.nodeType;
  const kids = () => [...n.children];
  switch (t.oneofKind) {
    case 'create':
      return { nodeId: n.id, kind: 'create', ...createFields(t.create) };
    case 'fetch': {
      const f = t.fetch;
      return {
        nodeId: n.id,
        kind: 'fetch',
        lfVersion: f.lfVersion,
        templateId: identifierText(f.templateId),
        packageName: f.packageName,
        contractId: f.contractId,
        interfaceId: identifierText(f.interfaceId),
        signatories: [...f.signatories],
        stakeholders: [...f.stakeholders],
        actingParties: [...f.actingParties],
        key: previewKey(f.key),
        byKey: f.byKey,
      };
    }
    case 'exercise': {
      const e = t.exercise;
      return {
        nodeId: n.id,
        kind: 'exercise',
        lfVersion: e.lfVersion,
        templateId: identifierText(e.templateId),
        packageName: e.packageName,
        contractId: e.contractId,
        interfaceId: identifierText(e.interfaceId),
        choice: e.choiceId,
        consuming: e.consuming,
        actingParties: [...e.actingParties],
        signatories: [...e.signatories],
        stakeholders: [...e.stakeholders],
        choiceObservers: [...e.choiceObservers],
        choiceArgument: renderValue(e.chosenValue),
        exerciseResult: renderValue(e.exerciseResult),
        key: previewKey(e.key),
        byKey: e.byKey,
        children: kids(),
      };
    }
    case 'rollback':
      return { nodeId: n.id, kind: 'rollback', children: kids() };
    case 'queryByKey': {
      const q = t.queryByKey;
      return {
        nodeId: n.id,
        kind: 'queryByKey',
        lfVersion: q.lfVersion,
        templateId: identifierText(q.templateId),
        packageName: q.packageName,
        exhaustive: q.exhaustive,
        key: previewKey(q.key),
        result: [...q.result],
      };
    }
    default:
      return { nodeId: n.id, kind: 'rollback', children: [] };
  }
}

function nodeParties(n: PreviewNode | PreviewInputContract, into: Set<string>): void {
  const lists = [
    (n as PreviewNode).signatories,
    (n as PreviewNode).stakeholders,
    (n as PreviewNode).actingParties,
    (n as PreviewNode).choiceObservers,
    (n as PreviewNode).key?.maintainers,
  ];
  for (const l of lists) for (const p of l ?? []) into.add(p);
}

/** Validates, hashes with `scheme` and summarises; throws `TransactionError` like the hasher. */
export function previewPreparedTransaction(
  tx: PreparedTransaction,
  scheme: HashingSchemeVersion,
): TransactionPreview {
  const hash = hashPreparedTransaction(tx, scheme);
  const index = validatePreparedTransaction(tx);
  const m = tx.metadata!;
  const t = tx.transaction!;
  const opt = (v: bigint | undefined) => (v === undefined ? null : microsToIso(v));
  // Pre-order walk with an explicit stack: deep transactions need no recursion.
  const nodes: PreviewNode[] = [];
  const stack = [...t.roots].reverse().map((id) => ({ id, parentId: null as string | null, depth: 0 }));
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const n = index.nodes.get(next.id)!;
    nodes.push({ ...previewNode(n), parentId: next.parentId, depth: next.depth });
    for (let i = n.children.length - 1; i >= 0; i--) {
      stack.push({ id: n.children[i]!, parentId: n.id, depth: next.depth + 1 });
    }
  }
  const inputContracts = m.inputContracts.map((ic) => {
    const c = ic.contract.oneofKind === 'v1' ? ic.contract.v1 : undefined;
    return {
      contractId: c?.contractId ?? '',
      templateId: identifierText(c?.templateId),
      packageName: c?.packageName ?? '',
      createdAt: microsToIso(ic.createdAt),
      signatories: [...(c?.signatories ?? [])],
      stakeholders: [...(c?.stakeholders ?? [])],
      argument: renderValue(c?.argument),
    };
  });
  const preview: TransactionPreview = {
    hashingSchemeVersion: scheme,
    hash: Buffer.from(hash).toString('hex'),
    hashBase64: Buffer.from(hash).toString('base64'),
    actAs: [...m.submitterInfo!.actAs],
    commandId: m.submitterInfo!.commandId,
    synchronizerId: m.synchronizerId,
    logicalSynchronizerId: logicalSynchronizerId(m.synchronizerId),
    transactionUuid: m.transactionUuid,
    mediatorGroup: m.mediatorGroup,
    preparationTime: microsToIso(m.preparationTime),
    minLedgerEffectiveTime: opt(m.minLedgerEffectiveTime),
    maxLedgerEffectiveTime: opt(m.maxLedgerEffectiveTime),
    maxRecordTime: opt(m.maxRecordTime),
    maxRecordTimeSigned: scheme === 'HASHING_SCHEME_VERSION_V3',
    transactionVersion: t.version,
    roots: [...t.roots],
    nodes,
    nodeCount: index.postOrder.length,
    inputContracts,
    parties: [],
  };
  const parties = new Set<string>(preview.actAs);
  for (const n of nodes) nodeParties(n, parties);
  for (const c of inputContracts) nodeParties(c, parties);
  preview.parties = [...parties].sort();
  return preview;
}
