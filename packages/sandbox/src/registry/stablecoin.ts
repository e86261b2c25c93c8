/**
 * A second registry, with templates of its own (not Amulet's): the stablecoin USDQ, package `quill-stablecoin`,
 * module `Quill.Stablecoin`, admin the `registrar` party, instrument `{admin: registrar, id: 'USDQ'}`. Its holdings
 * carry the standard's shapes directly:
 * - `Holding {registrar, owner, instrument: {admin, id}, amount, lock: Optional {holders, expiresAt, expiresAfter,
 *   context}, meta: {values}}` (signatories registrar, owner); a locked holding is the same template with `lock` set.
 * - `TransferFactory {registrar}` — the TransferFactory.
 * - `TransferOffer {transfer, lockedHolding}` (signatories registrar, sender; observer receiver) — the
 *   TransferInstruction.
 * - `TransferPreapproval {registrar, receiver}` (signatories registrar, receiver): the receiver takes USDQ in one
 *   step. The transfer's archives and creates sit directly under the factory's exercise (no inner choice).
 */
import {
  HOLDING_INTERFACE,
  TRANSFER_FACTORY_INTERFACE,
  TRANSFER_INSTRUCTION_INTERFACE,
} from '@quill/canton/token';
import type { Value } from '@quill/canton/transaction';
import { createNode, type Template } from '../daml.ts';
import { parseAmount } from '../decimal.ts';
import { valueToJson } from '../lfjson.ts';
import type { Contract, SandboxState } from '../state/index.ts';
import { packageIdFor } from '../state/packages.ts';
import type { Implementation, Json } from './interfaces.ts';
import { findPreapproval, type Genesis, type Lock, type Registry } from './model.ts';
import { instructionView, transferOf, transferValue } from './standard.ts';
import { ident, metaValue, timeOf, v } from './values.ts';

export const STABLECOIN_PACKAGE = 'quill-stablecoin';
export const STABLECOIN_MODULE = 'Quill.Stablecoin';
export const STABLECOIN_PACKAGE_ID = packageIdFor(STABLECOIN_PACKAGE, '1.0.0');
const ID = 'USDQ';

const T = {
  Holding: `${STABLECOIN_MODULE}:Holding`,
  TransferFactory: `${STABLECOIN_MODULE}:TransferFactory`,
  TransferOffer: `${STABLECOIN_MODULE}:TransferOffer`,
  TransferPreapproval: `${STABLECOIN_MODULE}:TransferPreapproval`,
} as const;

const named = (q: string) => `#${STABLECOIN_PACKAGE}:${q}`;

function template(q: string): Template {
  const [moduleName = '', entityName = ''] = q.split(':');
  return {
    packageId: STABLECOIN_PACKAGE_ID,
    packageName: STABLECOIN_PACKAGE,
    moduleName,
    entityName,
    templateId: `${STABLECOIN_PACKAGE_ID}:${q}`,
  };
}

const rec = (q: string, fields: Record<string, Value>) =>
  v.record(fields, ident(`${STABLECOIN_PACKAGE_ID}:${q}`));
const is = (c: Contract, q: string) => c.packageName === STABLECOIN_PACKAGE && c.templateId.endsWith(`:${q}`);
const registrarOf = (state: SandboxState) => state.registries.get('usdq')?.admin ?? '';

const implementations: readonly Implementation[] = [
  {
    template: named(T.Holding),
    interface: HOLDING_INTERFACE,
    view: (a) => ({
      owner: a.owner,
      instrumentId: a.instrument,
      amount: a.amount,
      lock: a.lock ?? null,
      meta: a.meta,
    }),
  },
  {
    template: named(T.TransferFactory),
    interface: TRANSFER_FACTORY_INTERFACE,
    view: (a) => ({ admin: a.registrar, meta: { values: {} } }),
  },
  {
    template: named(T.TransferOffer),
    interface: TRANSFER_INSTRUCTION_INTERFACE,
    view: (a) => instructionView(a.transfer),
  },
];

function holdingValue(
  registrar: string,
  owner: string,
  amount: bigint,
  lock?: Lock & { expiresAt: bigint },
): Value {
  return rec(T.Holding, {
    registrar: v.party(registrar),
    owner: v.party(owner),
    instrument: v.record({ admin: v.party(registrar), id: v.text(ID) }),
    amount: v.numeric(amount),
    lock: v.optional(
      lock === undefined
        ? undefined
        : v.record({
            holders: v.list(lock.holders.map(v.party)),
            expiresAt: v.optional(v.time(lock.expiresAt)),
            expiresAfter: v.optional(undefined),
            context: v.optional(lock.context === undefined ? undefined : v.text(lock.context)),
          }),
    ),
    meta: metaValue({}),
  });
}

export const STABLECOIN: Registry = {
  key: 'usdq',
  packageName: STABLECOIN_PACKAGE,
  packageId: STABLECOIN_PACKAGE_ID,
  instrument: { id: ID, name: 'Quill USD', symbol: 'USDQ' },
  admin: registrarOf,
  factory: (state) => state.contracts.get(state.registries.get('usdq')?.contracts.factory ?? ''),
  implementations,
  templates: Object.values(T),
  requiredContext: [],
  isFactory: (c) => is(c, T.TransferFactory),
  holdingOf(c) {
    if (!is(c, T.Holding)) return undefined;
    const a = valueToJson(c.argument) as Json;
    const amount = parseAmount(a.amount);
    const instrument = a.instrument as Json;
    if (amount === undefined) return undefined;
    const lock = a.lock as Json | null;
    return {
      owner: String(a.owner),
      admin: String(instrument.admin),
      instrument: String(instrument.id),
      amount,
      lock: lock
        ? {
            holders: (lock.holders as string[]) ?? [],
            expiresAt: lock.expiresAt == null ? undefined : timeOf(lock.expiresAt, 'lock.expiresAt'),
            context: typeof lock.context === 'string' ? lock.context : undefined,
          }
        : undefined,
    };
  },
  instructionOf(c) {
    if (!is(c, T.TransferOffer)) return undefined;
    const a = valueToJson(c.argument) as Json;
    return { transfer: transferOf(a.transfer, 'transfer'), lockedHoldingCid: String(a.lockedHolding) };
  },
  isPreapprovalFor: (c, receiver) =>
    is(c, T.TransferPreapproval) && (valueToJson(c.argument) as Json).receiver === receiver,
  holding(ctx, owner, amount) {
    const registrar = registrarOf(ctx.state);
    return createNode(ctx, template(T.Holding), holdingValue(registrar, owner, amount), [registrar, owner]);
  },
  lockedHolding(ctx, owner, amount, lock) {
    const registrar = registrarOf(ctx.state);
    return createNode(ctx, template(T.Holding), holdingValue(registrar, owner, amount, lock), [
      ...new Set([registrar, owner, ...lock.holders]),
    ]);
  },
  instruction(ctx, transfer, lockedHoldingCid) {
    return createNode(
      ctx,
      template(T.TransferOffer),
      rec(T.TransferOffer, { transfer: transferValue(transfer), lockedHolding: v.cid(lockedHoldingCid) }),
      [registrarOf(ctx.state), transfer.sender],
      [transfer.receiver],
    );
  },
  transferContext(state, t): { values: Record<string, Value>; disclose: Contract[] } {
    const pre = t.receiver === t.sender ? undefined : findPreapproval(state, STABLECOIN, t.receiver);
    return pre
      ? {
          values: { 'transfer-preapproval': v.variant('AV_ContractId', v.cid(pre.contractId)) },
          disclose: [pre],
        }
      : { values: {}, disclose: [] };
  },
};

export function stablecoinGenesis(registrar: string): Genesis[] {
  return [
    {
      name: 'factory',
      template: template(T.TransferFactory),
      argument: rec(T.TransferFactory, { registrar: v.party(registrar) }),
      signatories: [registrar],
    },
  ];
}

export function stablecoinPreapproval(registrar: string, receiver: string): Genesis {
  return {
    name: 'preapproval',
    template: template(T.TransferPreapproval),
    argument: rec(T.TransferPreapproval, { registrar: v.party(registrar), receiver: v.party(receiver) }),
    signatories: [registrar, receiver],
  };
}

/** A holding the registrar mints (bootstrap.ts). */
export function stablecoinHolding(registrar: string, owner: string, amount: bigint): Genesis {
  return {
    name: 'holding',
    template: template(T.Holding),
    argument: holdingValue(registrar, owner, amount),
    signatories: [registrar, owner],
  };
}
