// Building a PreparedTransaction from a convenient tree of nodes and metadata (the sandbox's `prepare`).
import { randomBytes, randomUUID } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import type {
  Create,
  DamlTransaction_Node,
  DamlTransaction_NodeSeed,
  GlobalKeyWithMaintainers,
  Identifier,
  Metadata_InputContract,
  Node,
  PreparedTransaction,
  Value,
} from '@quill/canton/transaction';
import { TransactionError, validatePreparedTransaction } from '@quill/canton/transaction';
import { identifier, toMicros } from './values.ts';

type TemplateRef = string | Identifier;
type Time = bigint | Date | string;

/** A contract key: `hash` is the 32-byte global key hash. */
export interface BuildKey {
  templateId: TemplateRef;
  packageName: string;
  key: Value;
  hash: Uint8Array;
  maintainers: string[];
}

interface ActionBase {
  /** LF serialization version of the node: "2.1" (default) or "2" (needed for contract keys, scheme V3). */
  lfVersion?: string;
  contractId: string;
  packageName: string;
  /** "packageId:Module:Entity" or an Identifier. */
  templateId: TemplateRef;
  signatories: string[];
  /** Defaults to the signatories. */
  stakeholders?: string[];
  key?: BuildKey;
}

export interface BuildCreate extends ActionBase {
  kind: 'create';
  argument: Value;
  /** Explicit 32-byte node seed; otherwise derived (see `BuildInput.seed`). */
  seed?: Uint8Array;
}

export interface BuildExercise extends ActionBase {
  kind: 'exercise';
  choice: string;
  choiceArgument: Value;
  consuming: boolean;
  actingParties: string[];
  interfaceId?: TemplateRef;
  choiceObservers?: string[];
  result?: Value;
  byKey?: boolean;
  children?: BuildNode[];
  seed?: Uint8Array;
}

export interface BuildFetch extends ActionBase {
  kind: 'fetch';
  actingParties: string[];
  interfaceId?: TemplateRef;
  byKey?: boolean;
}

export interface BuildRollback {
  kind: 'rollback';
  children: BuildNode[];
}

export interface BuildQueryByKey {
  kind: 'queryByKey';
  lfVersion?: string;
  packageName: string;
  templateId: TemplateRef;
  exhaustive: boolean;
  key: BuildKey;
  result: string[];
}

export type BuildNode = BuildCreate | BuildExercise | BuildFetch | BuildRollback | BuildQueryByKey;

/** A disclosed / input contract, hashed in the metadata as a seedless Create. */
export interface BuildInputContract {
  contract: Omit<BuildCreate, 'kind' | 'seed'>;
  /** Creation time (micros since epoch as bigint, Date or ISO string). */
  createdAt: Time;
  eventBlob?: Uint8Array;
}

export interface BuildInput {
  /** The transaction's root nodes, each a tree. Node ids are assigned "0", "1", … in pre-order. */
  roots: BuildNode[];
  /** Transaction serialization version; defaults to "2" if any node uses "2", else "2.1". */
  version?: string;
  /** Master seed: node seeds are sha256(seed || node id). Omit for random seeds. */
  seed?: Uint8Array;
  actAs: string[];
  commandId: string;
  synchronizerId: string;
  /** Defaults to a random UUID. */
  transactionUuid?: string;
  mediatorGroup?: number;
  preparationTime: Time;
  inputContracts?: BuildInputContract[];
  minLedgerEffectiveTime?: Time;
  maxLedgerEffectiveTime?: Time;
  /** Signed only under hashing scheme V3. */
  maxRecordTime?: Time;
}

const sortedSet = (xs: readonly string[]): string[] => [...new Set(xs)].sort();

function key(k: BuildKey | undefined): GlobalKeyWithMaintainers | undefined {
  if (k === undefined) return undefined;
  return {
    key: { templateId: identifier(k.templateId), packageName: k.packageName, key: k.key, hash: k.hash },
    maintainers: sortedSet(k.maintainers),
  };
}

/** The fields a fetch and an exercise share: the contract acted on and who acts. */
function actionOn(b: BuildFetch | BuildExercise) {
  return {
    lfVersion: b.lfVersion ?? '2.1',
    contractId: b.contractId,
    packageName: b.packageName,
    templateId: identifier(b.templateId),
    signatories: sortedSet(b.signatories),
    stakeholders: sortedSet(b.stakeholders ?? b.signatories),
    actingParties: sortedSet(b.actingParties),
    interfaceId: b.interfaceId === undefined ? undefined : identifier(b.interfaceId),
  };
}

function createOf(c: Omit<BuildCreate, 'kind' | 'seed'>): Create {
  return {
    lfVersion: c.lfVersion ?? '2.1',
    contractId: c.contractId,
    packageName: c.packageName,
    templateId: identifier(c.templateId),
    argument: c.argument,
    signatories: sortedSet(c.signatories),
    stakeholders: sortedSet(c.stakeholders ?? c.signatories),
    key: key(c.key),
  };
}

/**
 * Builds a `PreparedTransaction` from a tree of nodes and the metadata the participant would sign.
 * Party sets are sorted and de-duplicated and input contracts ordered by contract id, as the participant
 * does; Create and Exercise nodes get seeds. The result is validated (throws `TransactionError`), so
 * build → encode → decode → hash round-trips.
 *
 * @example
 * buildPreparedTransaction({
 *   roots: [{ kind: 'create', contractId, packageName: 'coin', templateId: 'pkg:Coin:Coin',
 *             argument: damlValue.record({ owner: damlValue.party(alice) }), signatories: [alice] }],
 *   actAs: [alice], commandId: 'cmd-1', synchronizerId, preparationTime: new Date(),
 * })
 */
export function buildPreparedTransaction(input: BuildInput): PreparedTransaction {
  const nodes: DamlTransaction_Node[] = [];
  const seeds: DamlTransaction_NodeSeed[] = [];
  let usesV2 = false;
  const seedFor = (id: number, explicit: Uint8Array | undefined): Uint8Array => {
    if (explicit !== undefined) return explicit;
    if (input.seed === undefined) return new Uint8Array(randomBytes(32));
    const idBytes = new Uint8Array(4);
    new DataView(idBytes.buffer).setInt32(0, id, false);
    return sha256(new Uint8Array([...input.seed, ...idBytes]));
  };
  // Pre-order ids without recursion (deep trees must not overflow the stack): a node takes the next id,
  // then its children are queued ahead of its later siblings, each appending its id to `into`.
  const pending: { b: BuildNode; into: string[] }[] = [];
  const queue = (bs: readonly BuildNode[] | undefined, into: string[]) => {
    const list = bs ?? [];
    for (let i = list.length - 1; i >= 0; i--) pending.push({ b: list[i]!, into });
  };
  const add = (b: BuildNode): string => {
    if (b === null || typeof b !== 'object')
      throw new TransactionError('INVALID_INPUT', 'node must be an object');
    const id = nodes.length;
    const slot: DamlTransaction_Node = { nodeId: String(id), versionedNode: { oneofKind: undefined } };
    nodes.push(slot);
    if ('lfVersion' in b && b.lfVersion === '2') usesV2 = true;
    let node: Node;
    switch (b.kind) {
      case 'create':
        node = { nodeType: { oneofKind: 'create', create: createOf(b) } };
        seeds.push({ nodeId: id, seed: seedFor(id, b.seed) });
        break;
      case 'fetch':
        node = {
          nodeType: {
            oneofKind: 'fetch',
            fetch: {
              ...actionOn(b),
              key: key(b.key),
              byKey: b.byKey ?? false,
            },
          },
        };
        break;
      case 'exercise': {
        seeds.push({ nodeId: id, seed: seedFor(id, b.seed) });
        const children: string[] = [];
        queue(b.children, children);
        node = {
          nodeType: {
            oneofKind: 'exercise',
            exercise: {
              ...actionOn(b),
              choiceId: b.choice,
              chosenValue: b.choiceArgument,
              consuming: b.consuming,
              children,
              exerciseResult: b.result,
              choiceObservers: sortedSet(b.choiceObservers ?? []),
              key: key(b.key),
              byKey: b.byKey ?? false,
            },
          },
        };
        break;
      }
      case 'rollback': {
        if (!Array.isArray(b.children))
          throw new TransactionError('INVALID_INPUT', 'rollback needs children');
        const kids: string[] = [];
        node = { nodeType: { oneofKind: 'rollback', rollback: { children: kids } } };
        queue(b.children, kids);
        break;
      }
      case 'queryByKey':
        node = {
          nodeType: {
            oneofKind: 'queryByKey',
            queryByKey: {
              lfVersion: b.lfVersion ?? '2',
              packageName: b.packageName,
              templateId: identifier(b.templateId),
              exhaustive: b.exhaustive,
              key: key(b.key),
              result: [...b.result],
            },
          },
        };
        if ((b.lfVersion ?? '2') === '2') usesV2 = true;
        break;
      default:
        throw new TransactionError(
          'INVALID_INPUT',
          `unknown node kind ${String((b as { kind?: unknown }).kind)}`,
        );
    }
    slot.versionedNode = { oneofKind: 'v1', v1: node };
    return slot.nodeId;
  };
  const roots: string[] = [];
  queue(input.roots, roots);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) next.into.push(add(next.b));
  const inputContracts: Metadata_InputContract[] = (input.inputContracts ?? [])
    .map((ic) => ({
      contract: { oneofKind: 'v1' as const, v1: createOf(ic.contract) },
      createdAt: toMicros(ic.createdAt),
      eventBlob: ic.eventBlob ?? new Uint8Array(0),
    }))
    .sort((a, b) => (a.contract.v1.contractId < b.contract.v1.contractId ? -1 : 1));
  const opt = (t: Time | undefined) => (t === undefined ? undefined : toMicros(t));
  const tx: PreparedTransaction = {
    transaction: { version: input.version ?? (usesV2 ? '2' : '2.1'), roots, nodes, nodeSeeds: seeds },
    metadata: {
      submitterInfo: { actAs: sortedSet(input.actAs), commandId: input.commandId },
      synchronizerId: input.synchronizerId,
      mediatorGroup: input.mediatorGroup ?? 0,
      transactionUuid: input.transactionUuid ?? randomUUID(),
      preparationTime: toMicros(input.preparationTime),
      inputContracts,
      minLedgerEffectiveTime: opt(input.minLedgerEffectiveTime),
      maxLedgerEffectiveTime: opt(input.maxLedgerEffectiveTime),
      maxRecordTime: opt(input.maxRecordTime),
      globalKeyMapping: [],
    },
  };
  validatePreparedTransaction(tx);
  return tx;
}
