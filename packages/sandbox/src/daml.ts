/**
 * What the sandbox's choices are built from: template resolution, the interpretation context (who acts, what may be
 * read, ledger time, new contract ids), the participant's interpretation errors, and node constructors (create,
 * fetch, `Archive`). Used by the demo coin (coin.ts), the registries (registry/) and interpretation (interpret.ts).
 */
import type { Value } from '@quill/canton/transaction';
import type { BuildCreate, BuildExercise, BuildFetch, BuildNode } from './build/index.ts';
import { err, SandboxError } from './errors.ts';
import { interfacePackageIdForm } from './registry/interfaces.ts';
import type { Contract, SandboxState } from './state/index.ts';

export const fail = {
  preprocessing: (why: string) =>
    new SandboxError('COMMAND_PREPROCESSING_FAILED', 8, `Command preprocessing failed: ${why}`, {}, [], true),
  authorization: (why: string) =>
    new SandboxError('DAML_AUTHORIZATION_ERROR', 8, `Interpretation error: Error: ${why}`, {}, [], true),
  failure: (why: string) =>
    new SandboxError('DAML_FAILURE', 9, `Interpretation error: Error: User failure: ${why}`, {}, [], true),
  package: (name: string) =>
    new SandboxError(
      'JSON_API_PACKAGE_SELECTION_FAILED',
      9,
      `Failed to select package-id for package-name '${name}'`,
      {},
      [],
      true,
    ),
};

export interface Template {
  packageId: string;
  packageName: string;
  moduleName: string;
  entityName: string;
  templateId: string;
}

/** Resolves `pkg:M:E` or `#name:M:E`; unknown names/ids are registered (generic templates). */
export function resolveTemplate(state: SandboxState, id: string): Template {
  const parts = id.split(':');
  if (parts.length !== 3 || parts.some((p) => p.length === 0))
    throw fail.preprocessing(`invalid template id ${id}`);
  const [pkg = '', moduleName = '', entityName = ''] = parts;
  let packageId: string;
  let packageName: string;
  if (pkg.startsWith('#')) {
    packageName = pkg.slice(1);
    if (!/^[A-Za-z0-9_-]{1,255}$/.test(packageName)) throw fail.package(packageName);
    packageId = state.packages.idForName(packageName) ?? registerPackage(state, packageName).packageId;
  } else {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(pkg)) throw fail.preprocessing(`invalid package id ${pkg}`);
    packageId = pkg;
    packageName = (state.packages.get(pkg) ?? registerPackage(state, `pkg-${pkg.slice(0, 12)}`, pkg))
      .packageName;
  }
  if (!state.packages.hasInterface(packageName, `${moduleName}:${entityName}`))
    state.packages.addTemplate(packageName, `${moduleName}:${entityName}`);
  return {
    packageId,
    packageName,
    moduleName,
    entityName,
    templateId: `${packageId}:${moduleName}:${entityName}`,
  };
}

/** Uploads and vets (on this participant) a package the sandbox first hears of in a command. */
function registerPackage(state: SandboxState, name: string, knownId?: string) {
  const p = state.packages.upload(name, '1.0.0', true, knownId);
  for (const s of state.synchronizers)
    state.packages.vet(state.participantId, s.id, { packageId: p.packageId });
  return p;
}

/** What a choice runs with: who acts, what it may read, the ledger time, and where new contract ids come from. */
export interface Ctx {
  state: SandboxState;
  actAs: string[];
  /** Every contract the transaction uses (its input contracts). */
  inputs: Map<string, Contract>;
  /** Contracts the submitter may use without being a stakeholder (disclosed contracts). */
  disclosed: ReadonlySet<string>;
  /** Ledger time in microseconds (prepare: now; replay: the ledger effective time). */
  now: bigint;
  newContractId(): string;
  /** Replaying a submitted transaction: visibility was decided at prepare. */
  replay: boolean;
}

export interface Outcome {
  children: BuildNode[];
  result: Value;
  consuming: boolean;
  /** The choice argument as the choice's type encodes it (default: inferred from the JSON). */
  choiceArgument?: Value;
}

export function createNode(
  ctx: Ctx,
  t: Template,
  argument: Value,
  signatories: string[],
  observers: string[] = [],
): BuildCreate {
  return {
    kind: 'create',
    contractId: ctx.newContractId(),
    packageName: t.packageName,
    templateId: t.templateId,
    argument,
    signatories,
    stakeholders: [...new Set([...signatories, ...observers])],
  };
}

/** A contract a choice reads (a Fetch node of the prepared transaction); it becomes an input contract. */
export function fetchNode(ctx: Ctx, c: Contract, interfaceId?: string): BuildFetch {
  ctx.inputs.set(c.contractId, c);
  return {
    kind: 'fetch',
    contractId: c.contractId,
    packageName: c.packageName,
    templateId: c.templateId,
    signatories: c.signatories,
    stakeholders: c.stakeholders,
    actingParties: [...ctx.actAs],
    interfaceId: interfaceId === undefined ? undefined : interfacePackageIdForm(interfaceId),
  };
}

/** The consuming `Archive` exercise of a contract by `actors` (how Daml's `archive` appears in a transaction). */
export function archiveNode(ctx: Ctx, c: Contract, actors: string[]): BuildExercise {
  ctx.inputs.set(c.contractId, c);
  return {
    kind: 'exercise',
    contractId: c.contractId,
    packageName: c.packageName,
    templateId: c.templateId,
    signatories: c.signatories,
    stakeholders: c.stakeholders,
    actingParties: actors,
    choice: 'Archive',
    choiceArgument: { sum: { oneofKind: 'record', record: { fields: [] } } },
    consuming: true,
    children: [],
    result: { sum: { oneofKind: 'unit', unit: {} } },
  };
}

export function requireActor(ctx: Ctx, who: string, what: string): void {
  if (!ctx.actAs.includes(who)) throw fail.authorization(`${what} requires authorization of ${who}`);
}

export const unit: Value = { sum: { oneofKind: 'unit', unit: {} } };

/** An active contract the submitter may use: a stakeholder's, a disclosed one, or the demo coin's rules. */
export function activeContract(ctx: Ctx, cid: unknown): Contract {
  if (typeof cid !== 'string') throw fail.preprocessing('contractId must be a string');
  const c = ctx.state.contracts.get(cid);
  if (!c || c.archivedOffset !== undefined) throw err.contractNotFound(cid);
  // The coin rules are readable by everyone (explicitly disclosed, as the network's rules contracts are).
  const visible =
    ctx.replay ||
    c.contractId === ctx.state.coinRules ||
    ctx.disclosed.has(c.contractId) ||
    c.stakeholders.some((p) => ctx.actAs.includes(p));
  if (!visible) throw err.contractNotFound(cid);
  return c;
}
