/**
 * Built-in templates so that real flows exist: package `quill-coin`, module `Quill.Coin`:
 * - `CoinRules {operator}`: `CoinRules_DevNet_Tap {receiver, amount}` (faucet), `CoinRules_Mint {owner, amount}`
 *   (operator only); both non-consuming, each creates a `Holding`.
 * - `Holding {operator, owner, amount}`: `Holding_Transfer {receiver, amount}` (receiver holding + change),
 *   `Holding_CreateTransferInstruction {receiver, amount, description?}` (locks the amount + change).
 * - `TransferInstruction {operator, sender, receiver, amount, description}`: `TransferInstruction_Accept`
 *   (receiver), `TransferInstruction_Reject` (receiver), `TransferInstruction_Withdraw` (sender).
 * Amounts are Numeric 10 strings computed with bigint fixed-point. Interpretation itself is interpret.ts's.
 */
import { HOLDING_INTERFACE } from '@quill/canton/token';
import type { Value } from '@quill/canton/transaction';
import type { BuildCreate, BuildNode } from './build/index.ts';
import {
  type Ctx,
  createNode,
  fail,
  type Outcome,
  requireActor,
  resolveTemplate,
  type Template,
} from './daml.ts';
import { formatAmount, parseAmount } from './decimal.ts';
import { field, text } from './lfjson.ts';
import type { Implementation } from './registry/interfaces.ts';
import type { Contract, SandboxState } from './state/index.ts';

export const COIN_PACKAGE = 'quill-coin';
export const COIN_MODULE = 'Quill.Coin';
/** The templates the coin package defines (a filter may name one before any contract of it exists). */
export const COIN_TEMPLATES = ['CoinRules', 'Holding', 'TransferInstruction'];

/**
 * The demo coin's Holding implements the token standard's Holding (splice `Splice.Api.Token.HoldingV1`), so that a
 * wallet reading holdings through the interface sees it: instrument `{admin: operator, id: 'QuillCoin'}`, never locked.
 */
export const COIN_IMPLEMENTATIONS: readonly Implementation[] = [
  {
    template: `#${COIN_PACKAGE}:${COIN_MODULE}:Holding`,
    interface: HOLDING_INTERFACE,
    view: (arg) => ({
      owner: arg.owner,
      instrumentId: { admin: arg.operator, id: 'QuillCoin' },
      amount: arg.amount,
      lock: null,
      meta: { values: {} },
    }),
  },
];

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

/** The choices of the coin's templates, or undefined for another template or choice. */
export function coinChoice(ctx: Ctx, c: Contract, choice: string, arg: unknown): Outcome | undefined {
  const entity = c.templateId.split(':')[2];
  const coin = c.packageName === COIN_PACKAGE;
  const operator = text(field(c.argument, 'operator')) ?? '';
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
  return undefined;
}
