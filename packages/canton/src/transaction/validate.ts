// Structural validation of a PreparedTransaction, independent of the hashing scheme: every node well
// formed, node ids canonical and unique, seeds where the participant requires them, one proper tree per
// root (no missing, shared, cyclic or orphan nodes), metadata complete. Returns an index the hasher uses.
import {
  checkContractId,
  checkHash32,
  checkIdentifier,
  checkKey,
  checkLedgerString,
  checkPackageName,
  checkParties,
  checkTimestamp,
  checkUuid,
  checkValue,
  MAX_TIMESTAMP,
} from './checks.ts';
import { fail } from './errors.ts';
import type { Create, GlobalKeyWithMaintainers, Metadata, Node, PreparedTransaction } from './types.ts';

/** LF serialization versions as written in `lf_version`: "2.1" = V1, "2" = V2 (keys), "dev". */
const LF_VERSIONS = ['2.1', '2', 'dev'] as const;
export type LfVersion = (typeof LF_VERSIONS)[number];

export interface IndexedNode {
  readonly id: string;
  readonly node: Node;
  readonly seed: Uint8Array | undefined;
  readonly children: readonly string[];
}

export interface TransactionIndex {
  readonly nodes: ReadonlyMap<string, IndexedNode>;
  /** Every node reachable from the roots, children before their parent (the order hashes are needed in). */
  readonly postOrder: readonly IndexedNode[];
}

const NODE_ID = /^(0|[1-9]\d{0,9})$/;

function checkLfVersion(v: string, where: string): void {
  if (!(LF_VERSIONS as readonly string[]).includes(v)) {
    fail('UNSUPPORTED_LF_VERSION', `${where}: unsupported serialization version '${v.slice(0, 20)}'`);
  }
}

function checkNodeKey(
  key: GlobalKeyWithMaintainers | undefined,
  byKey: boolean,
  lf: string,
  where: string,
): void {
  if (lf === '2.1' && key !== undefined) {
    fail(
      'UNSUPPORTED_LF_VERSION',
      `${where}: Keys are not supported in nodes with LF Serialization version V1`,
    );
  }
  if (lf === '2.1' && byKey) {
    fail(
      'UNSUPPORTED_LF_VERSION',
      `${where}: byKey is not supported in nodes with LF Serialization version V1`,
    );
  }
  if (key !== undefined) checkKey(key, `${where} key`);
}

/** Checks a Create node's own fields (used for transaction nodes and input contracts). */
function checkCreate(c: Create, where: string): void {
  checkLfVersion(c.lfVersion, where);
  checkContractId(c.contractId, `${where} contract id`);
  checkPackageName(c.packageName, `${where} package name`);
  checkIdentifier(c.templateId, `${where} template id`);
  checkValue(c.argument, `${where} argument`);
  checkParties(c.signatories, `${where} signatories`, true);
  checkParties(c.stakeholders, `${where} stakeholders`, true);
  checkNodeKey(c.key, false, c.lfVersion, where);
}

function checkNode(node: Node, where: string): readonly string[] {
  const t = node.nodeType;
  switch (t.oneofKind) {
    case 'create':
      checkCreate(t.create, `${where} (create)`);
      return [];
    case 'fetch': {
      const f = t.fetch;
      const w = `${where} (fetch)`;
      checkLfVersion(f.lfVersion, w);
      checkContractId(f.contractId, `${w} contract id`);
      checkPackageName(f.packageName, `${w} package name`);
      checkIdentifier(f.templateId, `${w} template id`);
      if (f.interfaceId !== undefined) checkIdentifier(f.interfaceId, `${w} interface id`);
      checkParties(f.signatories, `${w} signatories`, true);
      checkParties(f.stakeholders, `${w} stakeholders`, true);
      checkParties(f.actingParties, `${w} acting parties`, false);
      checkNodeKey(f.key, f.byKey, f.lfVersion, w);
      return [];
    }
    case 'exercise': {
      const e = t.exercise;
      const w = `${where} (exercise)`;
      checkLfVersion(e.lfVersion, w);
      checkContractId(e.contractId, `${w} contract id`);
      checkPackageName(e.packageName, `${w} package name`);
      checkIdentifier(e.templateId, `${w} template id`);
      if (e.interfaceId !== undefined) checkIdentifier(e.interfaceId, `${w} interface id`);
      if (!/^[A-Za-z_$][A-Za-z0-9_$]{0,999}$/.test(e.choiceId))
        fail('INVALID_IDENTIFIER', `${w}: bad choice id`);
      checkValue(e.chosenValue, `${w} chosen value`);
      if (e.exerciseResult !== undefined) checkValue(e.exerciseResult, `${w} exercise result`);
      checkParties(e.signatories, `${w} signatories`, true);
      checkParties(e.stakeholders, `${w} stakeholders`, true);
      checkParties(e.actingParties, `${w} acting parties`, true);
      checkParties(e.choiceObservers, `${w} choice observers`, false);
      checkNodeKey(e.key, e.byKey, e.lfVersion, w);
      return e.children;
    }
    case 'rollback':
      return t.rollback.children;
    case 'queryByKey': {
      const q = t.queryByKey;
      const w = `${where} (query by key)`;
      checkLfVersion(q.lfVersion, w);
      checkPackageName(q.packageName, `${w} package name`);
      checkIdentifier(q.templateId, `${w} template id`);
      if (q.key === undefined) fail('MISSING_FIELD', `${w}: key is missing`);
      checkNodeKey(q.key, false, q.lfVersion, w);
      q.result.forEach((cid, i) => {
        checkContractId(cid, `${w} result ${i}`);
      });
      return [];
    }
    default:
      return fail('UNKNOWN_NODE_TYPE', `${where} has no known node type`);
  }
}

function checkMetadata(m: Metadata | undefined): asserts m is Metadata {
  if (m === undefined) fail('MISSING_METADATA', 'prepared transaction has no metadata');
  const si = m.submitterInfo;
  if (si === undefined) fail('MISSING_FIELD', 'metadata.submitter_info is missing');
  checkParties(si.actAs, 'metadata act_as', true);
  checkLedgerString(si.commandId, 'metadata command_id');
  if (m.synchronizerId.length === 0) fail('MISSING_FIELD', 'metadata.synchronizer_id is missing');
  checkUuid(m.transactionUuid, 'metadata transaction_uuid');
  if (!Number.isInteger(m.mediatorGroup) || m.mediatorGroup < 0 || m.mediatorGroup > 0xffffffff) {
    fail('INVALID_METADATA', `metadata mediator_group ${m.mediatorGroup} is not a uint32`);
  }
  checkWireTime(m.preparationTime, 'metadata preparation_time');
  if (m.minLedgerEffectiveTime !== undefined)
    checkWireTime(m.minLedgerEffectiveTime, 'metadata min_ledger_effective_time');
  if (m.maxLedgerEffectiveTime !== undefined)
    checkWireTime(m.maxLedgerEffectiveTime, 'metadata max_ledger_effective_time');
  if (m.maxRecordTime !== undefined) checkWireTime(m.maxRecordTime, 'metadata max_record_time');
  const cids = new Set<string>();
  m.inputContracts.forEach((ic, i) => {
    const w = `input contract ${i}`;
    if (ic.contract.oneofKind !== 'v1') fail('MISSING_FIELD', `${w} has no contract`);
    checkCreate(ic.contract.v1, w);
    if (typeof ic.createdAt !== 'bigint' || ic.createdAt < 0n || ic.createdAt > MAX_TIMESTAMP) {
      fail('INVALID_TIME', `${w}: created_at ${ic.createdAt} out of range`);
    }
    if (cids.has(ic.contract.v1.contractId)) fail('INVALID_METADATA', `${w}: duplicate contract id`);
    cids.add(ic.contract.v1.contractId);
  });
}

/** Metadata times are uint64 on the wire: a Daml timestamp that is not before the epoch. */
function checkWireTime(t: bigint, where: string): void {
  checkTimestamp(t, where);
  if (t < 0n) fail('INVALID_TIME', `${where}: ${t} is before 1970`);
}

/** Validates everything the hash depends on; throws `TransactionError`. */
export function validatePreparedTransaction(tx: PreparedTransaction): TransactionIndex {
  const t = tx.transaction;
  if (t === undefined) fail('MISSING_TRANSACTION', 'prepared transaction has no transaction');
  checkMetadata(tx.metadata);
  checkLfVersion(t.version, 'transaction version');
  const seeds = new Map<string, Uint8Array>();
  for (const s of t.nodeSeeds) {
    if (s.nodeId < 0) fail('INVALID_NODE_ID', `node seed for negative node id ${s.nodeId}`);
    const id = String(s.nodeId);
    if (seeds.has(id)) fail('DUPLICATE_NODE_ID', `two node seeds for node ${id}`);
    checkHash32(s.seed, `seed of node ${id}`);
    seeds.set(id, s.seed);
  }
  const nodes = new Map<string, IndexedNode>();
  for (const n of t.nodes) {
    if (!NODE_ID.test(n.nodeId) || Number(n.nodeId) > 2147483647) {
      fail('INVALID_NODE_ID', `node id "${n.nodeId.slice(0, 20)}" is not a canonical non-negative integer`);
    }
    if (nodes.has(n.nodeId)) fail('DUPLICATE_NODE_ID', `node id ${n.nodeId} appears twice`);
    if (n.versionedNode.oneofKind !== 'v1')
      fail('UNKNOWN_NODE_TYPE', `node ${n.nodeId} has no known node version`);
    const node = n.versionedNode.v1;
    const children = checkNode(node, `node ${n.nodeId}`);
    const kind = node.nodeType.oneofKind;
    const seed = seeds.get(n.nodeId);
    if ((kind === 'create' || kind === 'exercise') && seed === undefined) {
      fail('MISSING_NODE_SEED', `node ${n.nodeId} (${kind}) has no node seed`);
    }
    nodes.set(n.nodeId, { id: n.nodeId, node, seed, children });
  }
  return { nodes, postOrder: postOrder(t.roots, nodes) };
}

/** Iterative post-order walk (deep transactions must not overflow the stack); each node visited once. */
function postOrder(roots: readonly string[], nodes: ReadonlyMap<string, IndexedNode>): IndexedNode[] {
  const out: IndexedNode[] = [];
  const seen = new Set<string>();
  const visit = (id: string, parent: string): IndexedNode => {
    const n = nodes.get(id);
    if (n === undefined)
      fail('MISSING_NODE', `${parent} refers to node ${id.slice(0, 20)}, which does not exist`);
    if (seen.has(id)) fail('INVALID_TREE', `node ${id} is referenced more than once`);
    seen.add(id);
    return n;
  };
  for (const root of roots) {
    const stack: { n: IndexedNode; next: number }[] = [{ n: visit(root, 'the root list'), next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next < top.n.children.length) {
        const child = top.n.children[top.next++]!;
        stack.push({ n: visit(child, `node ${top.n.id}`), next: 0 });
      } else {
        out.push(top.n);
        stack.pop();
      }
    }
  }
  if (seen.size !== nodes.size) {
    const orphan = [...nodes.keys()].find((k) => !seen.has(k));
    fail('INVALID_TREE', `node ${orphan} is not reachable from any root`);
  }
  return out;
}
