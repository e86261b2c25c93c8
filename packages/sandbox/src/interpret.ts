/**
 * Interpretation of JSON API commands into a node tree, as the participant's engine does for prepare, and its
 * replay at execution (model conformance). Templates are resolved by name or package id; an ExerciseCommand whose
 * `templateId` names an interface exercises the interface's choice on a contract whose template implements it
 * (the exercise node then carries `interfaceId`). The choices themselves live with their templates: the demo coin
 * (coin.ts) and the token registries (registry/). Any other template is a generic record whose signatories are
 * the actAs parties; `Archive` works on all.
 */
import type { Value } from '@quill/canton/transaction';
import type { BuildCreate, BuildExercise, BuildNode } from './build/index.ts';
import { coinChoice } from './coin.ts';
import {
  activeContract,
  type Ctx,
  createNode,
  fail,
  type Outcome,
  requireActor,
  resolveTemplate,
  unit,
} from './daml.ts';
import { valueFromJson } from './lfjson.ts';
import { registryChoice } from './registry/choices.ts';
import { interfacePackageIdForm } from './registry/interfaces.ts';
import { interfaces } from './registry/table.ts';
import type { Contract, SandboxState } from './state/index.ts';

/** The choices of every template: `Archive`, the coin's, the registries' (interface choices need `iface`). */
function runChoice(ctx: Ctx, c: Contract, choice: string, arg: unknown, iface?: string): Outcome {
  if (choice === 'Archive' && iface === undefined) {
    requireActor(ctx, c.signatories[0] ?? '', 'Archive');
    return { children: [], result: unit, consuming: true };
  }
  const out =
    (iface === undefined ? coinChoice(ctx, c, choice, arg) : undefined) ??
    registryChoice(ctx, c, choice, arg, iface);
  if (out) return out;
  throw fail.preprocessing(`unknown choice ${choice} of ${iface ?? `template ${c.templateId}`}`);
}

function exerciseNode(ctx: Ctx, c: Contract, choice: string, arg: unknown, iface?: string): BuildExercise {
  ctx.inputs.set(c.contractId, c);
  const out = runChoice(ctx, c, choice, arg, iface);
  let choiceArgument = out.choiceArgument;
  if (choiceArgument === undefined) {
    try {
      choiceArgument = valueFromJson(arg ?? {});
    } catch (e) {
      throw fail.preprocessing((e as Error).message);
    }
  }
  return {
    kind: 'exercise',
    contractId: c.contractId,
    packageName: c.packageName,
    templateId: c.templateId,
    interfaceId: iface === undefined ? undefined : interfacePackageIdForm(iface),
    signatories: c.signatories,
    stakeholders: c.stakeholders,
    actingParties: [...ctx.actAs],
    choice,
    choiceArgument,
    consuming: out.consuming,
    children: out.children,
    result: out.result,
  };
}

function genericCreate(ctx: Ctx, templateId: string, args: unknown): BuildCreate {
  const t = resolveTemplate(ctx.state, templateId);
  let argument: Value;
  try {
    argument = valueFromJson(args ?? {}, {
      packageId: t.packageId,
      moduleName: t.moduleName,
      entityName: t.entityName,
    });
  } catch (e) {
    throw fail.preprocessing((e as Error).message);
  }
  if (argument.sum.oneofKind !== 'record') throw fail.preprocessing('createArguments must be a record');
  return createNode(ctx, t, argument, ctx.actAs);
}

/**
 * The interface an ExerciseCommand's `templateId` names, as `#name:Module:Entity`, or undefined when it names a
 * template. The contract's template must implement it (the engine's interface exercise).
 */
function interfaceOf(state: SandboxState, templateId: string, c: Contract): string | undefined {
  const [pkg = '', module = '', entity = ''] = templateId.split(':');
  const name = pkg.startsWith('#') ? pkg.slice(1) : state.packages.get(pkg)?.packageName;
  if (name === undefined || !state.packages.hasInterface(name, `${module}:${entity}`)) return undefined;
  const qualified = `#${name}:${module}:${entity}`;
  if (!interfaces().implements(c, qualified))
    throw fail.preprocessing(`contract ${c.contractId} does not implement interface ${templateId}`);
  return qualified;
}

export interface Draft {
  roots: BuildNode[];
  inputs: Contract[];
}

export interface InterpretOptions {
  /** Contract ids of the request's disclosed contracts (already checked against their blobs). */
  disclosed?: ReadonlySet<string>;
  now?: bigint;
}

/** Interprets JSON API commands for the actAs parties into a node tree plus the input contracts it uses. */
export function interpret(
  state: SandboxState,
  commands: unknown[],
  actAs: string[],
  opts: InterpretOptions = {},
): Draft {
  const ctx: Ctx = {
    state,
    actAs,
    inputs: new Map(),
    disclosed: opts.disclosed ?? new Set(),
    now: opts.now ?? state.nowMicros(),
    newContractId: () => state.newContractId(),
    replay: false,
  };
  const roots: BuildNode[] = [];
  for (const command of commands) {
    const [kind, body] = Object.entries((command ?? {}) as Record<string, Record<string, unknown>>)[0] ?? [];
    if (kind === 'CreateCommand' && body) {
      roots.push(genericCreate(ctx, String(body.templateId), body.createArguments));
    } else if (kind === 'ExerciseCommand' && body) {
      const c = activeContract(ctx, body.contractId);
      const iface = interfaceOf(state, String(body.templateId), c);
      if (iface === undefined) {
        const wanted = resolveTemplate(state, String(body.templateId));
        if (
          wanted.packageName !== c.packageName ||
          !c.templateId.endsWith(`:${wanted.moduleName}:${wanted.entityName}`)
        ) {
          throw fail.preprocessing(`contract ${c.contractId} is not of template ${String(body.templateId)}`);
        }
      }
      roots.push(exerciseNode(ctx, c, String(body.choice), body.choiceArgument, iface));
    } else if (kind === 'CreateAndExerciseCommand' && body) {
      const create = genericCreate(ctx, String(body.templateId), body.createArguments);
      roots.push(create);
      const transient: Contract = {
        contractId: create.contractId,
        templateId: String(create.templateId),
        packageId: String(create.templateId).split(':')[0] ?? '',
        packageName: create.packageName,
        argument: create.argument,
        signatories: create.signatories,
        stakeholders: create.stakeholders ?? create.signatories,
        createdAt: '',
        createdAtMicros: 0n,
        createdOffset: 0,
        createdNodeId: 0,
        synchronizerId: '',
        reassignmentCounter: 0,
      };
      roots.push(exerciseNode(ctx, transient, String(body.choice), body.choiceArgument));
      ctx.inputs.delete(transient.contractId);
    } else if (kind === 'ExerciseByKeyCommand') {
      throw fail.preprocessing('contract keys are not supported by the sandbox');
    } else {
      throw fail.preprocessing('unknown command');
    }
  }
  return { roots, inputs: [...ctx.inputs.values()] };
}

/**
 * Re-runs a submitted exercise (model conformance) at ledger time `now`, taking the ids of the contracts it
 * creates from `contractIds` in order (the submitted transaction's), so that its tree can be compared node for
 * node. `iface` is the exercise's interface in `#name:Module:Entity` form.
 */
export function replayExercise(
  state: SandboxState,
  contract: Contract,
  exercise: { choice: string; arg: unknown; iface?: string },
  actAs: string[],
  now: bigint,
  contractIds: string[],
): { node: BuildExercise; inputs: Contract[] } {
  const queue = [...contractIds];
  const ctx: Ctx = {
    state,
    actAs,
    inputs: new Map(),
    disclosed: new Set(),
    now,
    newContractId: () => queue.shift() ?? state.newContractId(),
    replay: true,
  };
  const node = exerciseNode(ctx, contract, exercise.choice, exercise.arg, exercise.iface);
  return { node, inputs: [...ctx.inputs.values()] };
}
