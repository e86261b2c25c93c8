/**
 * Built-in templates so that real flows exist: package `quill-coin`, module `Quill.Coin`:
 * - `CoinRules {operator}`: `CoinRules_DevNet_Tap {receiver, amount}` (faucet), `CoinRules_Mint {owner, amount}`
 *   (operator only); both non-consuming, each creates a `Holding`.
 * - `Holding {operator, owner, amount}`: `Holding_Transfer {receiver, amount}` (receiver holding + change),
 *   `Holding_CreateTransferInstruction {receiver, amount, description?}` (locks the amount + change).
 * - `TransferInstruction {operator, sender, receiver, amount, description}`: `TransferInstruction_Accept`
 *   (receiver), `TransferInstruction_Reject` (receiver), `TransferInstruction_Withdraw` (sender).
 * Any other template id is a generic record whose signatories are the actAs parties; `Archive` works on all.
 * Amounts are Numeric 10 strings computed with bigint fixed-point.
 */
import type { Value } from '@quill/canton/transaction';
import type { BuildCreate, BuildExercise, BuildNode } from './build/index.ts';
import { formatAmount, parseAmount } from './decimal.ts';
import { err, SandboxError } from './errors.ts';
import { field, text, valueFromJson } from './lfjson.ts';
import type { Contract, SandboxState } from './state/index.ts';

export const COIN_PACKAGE = 'quill-coin';
export const COIN_MODULE = 'Quill.Coin';
/** The templates the coin package defines (a filter may name one before any contract of it exists). */
export const COIN_TEMPLATES = ['CoinRules', 'Holding', 'TransferInstruction'];

const coinChoice = (choice: string, receiver = 'receiver') => ({
  template: `#${COIN_PACKAGE}:${COIN_MODULE}:`,
  choice,
  receiver,
  amount: 'amount',
});

/**
 * What a wallet on the sandbox should know of the demo coin (the shape of the wallet's asset recognizers): the
 * choices that move an amount, with the argument fields naming the receiver and the amount, and the holding
 * template with its owner and amount fields.
 */
export const COIN_RECOGNIZERS = {
  transfers: [
    coinChoice('Holding_Transfer'),
    coinChoice('Holding_CreateTransferInstruction'),
    coinChoice('CoinRules_DevNet_Tap'),
    coinChoice('CoinRules_Mint', 'owner'),
  ],
  holdings: [
    { packageName: COIN_PACKAGE, module: COIN_MODULE, entity: 'Holding', owner: 'owner', amount: 'amount' },
  ],
};

const fail = {
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

interface Template {
  packageId: string;
  packageName: string;
  moduleName: string;
  entityName: string;
  templateId: string;
}

/** Resolves `pkg:M:E` or `#name:M:E`; unknown names/ids are registered (generic templates). */
function resolveTemplate(state: SandboxState, id: string): Template {
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
  if (name === COIN_PACKAGE)
    for (const entity of COIN_TEMPLATES) state.packages.addTemplate(name, `${COIN_MODULE}:${entity}`);
  for (const s of state.synchronizers)
    state.packages.vet(state.participantId, s.id, { packageId: p.packageId });
  return p;
}

export interface Draft {
  roots: BuildNode[];
  inputs: Contract[];
}

interface Ctx {
  state: SandboxState;
  actAs: string[];
  inputs: Map<string, Contract>;
}

const party = (p: string): Value => ({ sum: { oneofKind: 'party', party: p } });
const numeric = (u: bigint): Value => ({ sum: { oneofKind: 'numeric', numeric: formatAmount(u) } });
const textValue = (s: string): Value => ({ sum: { oneofKind: 'text', text: s } });
const unit: Value = { sum: { oneofKind: 'unit', unit: {} } };

function record(t: Template, fields: Record<string, Value>): Value {
  return {
    sum: {
      oneofKind: 'record',
      record: {
        recordId: { packageId: t.packageId, moduleName: t.moduleName, entityName: t.entityName },
        fields: Object.entries(fields).map(([label, value]) => ({ label, value })),
      },
    },
  };
}

export function coinTemplate(state: SandboxState, entity: string): Template {
  return resolveTemplate(state, `#${COIN_PACKAGE}:${COIN_MODULE}:${entity}`);
}

function createNode(
  ctx: Ctx,
  t: Template,
  argument: Value,
  signatories: string[],
  observers: string[] = [],
): BuildCreate {
  return {
    kind: 'create',
    contractId: ctx.state.newContractId(),
    packageName: t.packageName,
    templateId: t.templateId,
    argument,
    signatories,
    stakeholders: [...new Set([...signatories, ...observers])],
  };
}

function holding(ctx: Ctx, operator: string, owner: string, amount: bigint): BuildCreate {
  const t = coinTemplate(ctx.state, 'Holding');
  return createNode(
    ctx,
    t,
    record(t, { operator: party(operator), owner: party(owner), amount: numeric(amount) }),
    [operator, owner],
  );
}

function amountArg(arg: unknown, name = 'amount'): bigint {
  const raw = (arg as Record<string, unknown> | null)?.[name];
  const units = parseAmount(typeof raw === 'number' ? String(raw) : raw);
  if (units === undefined) throw fail.preprocessing(`field ${name} must be a Numeric 10 decimal string`);
  if (units <= 0n) throw fail.failure(`${name} must be positive`);
  return units;
}

function partyArg(ctx: Ctx, arg: unknown, name: string): string {
  const raw = (arg as Record<string, unknown> | null)?.[name];
  if (typeof raw !== 'string' || !ctx.state.parties.has(raw)) {
    throw fail.preprocessing(`field ${name} must be a known party id`);
  }
  return raw;
}

function requireActor(ctx: Ctx, who: string, what: string): void {
  if (!ctx.actAs.includes(who)) throw fail.authorization(`${what} requires authorization of ${who}`);
}

interface Outcome {
  children: BuildNode[];
  result: Value;
  consuming: boolean;
}

/** The choices of the built-in templates (and `Archive` for every template). */
function runChoice(ctx: Ctx, c: Contract, choice: string, arg: unknown): Outcome {
  const entity = c.templateId.split(':')[2];
  const coin = c.packageName === COIN_PACKAGE;
  const operator = text(field(c.argument, 'operator')) ?? '';
  if (choice === 'Archive') {
    requireActor(ctx, c.signatories[0] ?? '', 'Archive');
    return { children: [], result: unit, consuming: true };
  }
  if (coin && entity === 'CoinRules' && choice === 'CoinRules_DevNet_Tap') {
    const receiver = partyArg(ctx, arg, 'receiver');
    requireActor(ctx, receiver, 'CoinRules_DevNet_Tap');
    return { children: [holding(ctx, operator, receiver, amountArg(arg))], result: unit, consuming: false };
  }
  if (coin && entity === 'CoinRules' && choice === 'CoinRules_Mint') {
    requireActor(ctx, operator, 'CoinRules_Mint');
    const owner = partyArg(ctx, arg, 'owner');
    return { children: [holding(ctx, operator, owner, amountArg(arg))], result: unit, consuming: false };
  }
  if (coin && entity === 'Holding') {
    const owner = text(field(c.argument, 'owner')) ?? '';
    const have = parseAmount(text(field(c.argument, 'amount'))) ?? 0n;
    requireActor(ctx, owner, choice);
    if (choice === 'Holding_Transfer' || choice === 'Holding_CreateTransferInstruction') {
      const receiver = partyArg(ctx, arg, 'receiver');
      const amount = amountArg(arg);
      if (amount > have)
        throw fail.failure(`insufficient funds: ${formatAmount(have)} < ${formatAmount(amount)}`);
      const children: BuildNode[] = [];
      if (choice === 'Holding_Transfer') children.push(holding(ctx, operator, receiver, amount));
      else {
        const t = coinTemplate(ctx.state, 'TransferInstruction');
        const description = (arg as { description?: unknown } | null)?.description;
        const argument = record(t, {
          operator: party(operator),
          sender: party(owner),
          receiver: party(receiver),
          amount: numeric(amount),
          description: textValue(typeof description === 'string' ? description : ''),
        });
        children.push(createNode(ctx, t, argument, [operator, owner], [receiver]));
      }
      if (have > amount) children.push(holding(ctx, operator, owner, have - amount));
      return { children, result: unit, consuming: true };
    }
  }
  if (coin && entity === 'TransferInstruction') {
    const sender = text(field(c.argument, 'sender')) ?? '';
    const receiver = text(field(c.argument, 'receiver')) ?? '';
    const amount = parseAmount(text(field(c.argument, 'amount'))) ?? 0n;
    const actor = {
      TransferInstruction_Accept: receiver,
      TransferInstruction_Reject: receiver,
      TransferInstruction_Withdraw: sender,
    }[choice];
    if (actor !== undefined) {
      requireActor(ctx, actor, choice);
      const to = choice === 'TransferInstruction_Accept' ? receiver : sender;
      return { children: [holding(ctx, operator, to, amount)], result: unit, consuming: true };
    }
  }
  throw fail.preprocessing(`unknown choice ${choice} of template ${c.templateId}`);
}

function exerciseNode(ctx: Ctx, c: Contract, choice: string, arg: unknown): BuildExercise {
  const out = runChoice(ctx, c, choice, arg);
  let choiceArgument: Value;
  try {
    choiceArgument = valueFromJson(arg ?? {});
  } catch (e) {
    throw fail.preprocessing((e as Error).message);
  }
  return {
    kind: 'exercise',
    contractId: c.contractId,
    packageName: c.packageName,
    templateId: c.templateId,
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

function activeContract(ctx: Ctx, cid: unknown): Contract {
  if (typeof cid !== 'string') throw fail.preprocessing('contractId must be a string');
  const c = ctx.state.contracts.get(cid);
  if (!c || c.archivedOffset !== undefined) throw err.contractNotFound(cid);
  // The coin rules are readable by everyone (explicitly disclosed, as the network's rules contracts are).
  const visible = c.contractId === ctx.state.coinRules || c.stakeholders.some((p) => ctx.actAs.includes(p));
  if (!visible) throw err.contractNotFound(cid);
  return c;
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

/** Interprets JSON API commands for the actAs parties into a node tree plus the input contracts it uses. */
export function interpret(state: SandboxState, commands: unknown[], actAs: string[]): Draft {
  const ctx: Ctx = { state, actAs, inputs: new Map() };
  const roots: BuildNode[] = [];
  for (const command of commands) {
    const [kind, body] = Object.entries((command ?? {}) as Record<string, Record<string, unknown>>)[0] ?? [];
    if (kind === 'CreateCommand' && body) {
      roots.push(genericCreate(ctx, String(body.templateId), body.createArguments));
    } else if (kind === 'ExerciseCommand' && body) {
      const c = activeContract(ctx, body.contractId);
      const wanted = resolveTemplate(state, String(body.templateId));
      if (
        wanted.packageName !== c.packageName ||
        !c.templateId.endsWith(`:${wanted.moduleName}:${wanted.entityName}`)
      ) {
        throw fail.preprocessing(`contract ${c.contractId} is not of template ${String(body.templateId)}`);
      }
      ctx.inputs.set(c.contractId, c);
      roots.push(exerciseNode(ctx, c, String(body.choice), body.choiceArgument));
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
    } else if (kind === 'ExerciseByKeyCommand') {
      throw fail.preprocessing('contract keys are not supported by the sandbox');
    } else {
      throw fail.preprocessing('unknown command');
    }
  }
  return { roots, inputs: [...ctx.inputs.values()] };
}

/** Re-runs a choice for a submitted exercise (model conformance): the children and consumption it implies. */
export function replayChoice(
  state: SandboxState,
  contract: Contract,
  choice: string,
  arg: unknown,
  actAs: string[],
): { children: BuildNode[]; consuming: boolean } {
  const out = runChoice({ state, actAs, inputs: new Map() }, contract, choice, arg);
  return { children: out.children, consuming: out.consuming };
}
