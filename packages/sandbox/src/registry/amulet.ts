/**
 * An Amulet-like registry (Canton Coin) with the real identifiers: package `splice-amulet` 0.1.22
 * (`fb10433a…`, splice `daml/dars.lock`), admin the DSO party, instrument `{admin: DSO, id: 'Amulet'}`. Templates
 * with splice's field names and shapes (`daml/splice-amulet/daml/Splice/{Amulet,AmuletRules,ExternalPartyAmuletRules,
 * AmuletTransferInstruction}.daml`):
 * - `Splice.Amulet:Amulet {dso, owner, amount: ExpiringAmount {initialAmount, createdAt: Round {number},
 *   ratePerRound: {rate}}}` (signatories dso, owner) — Holding, amount = initialAmount, no lock.
 * - `Splice.Amulet:LockedAmulet {amulet: Amulet, lock: TimeLock {holders, expiresAt, optContext}}` (signatories the
 *   holders and the amulet's) — Holding with lock {holders, expiresAt, expiresAfter: None, context: optContext}.
 * - `Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules {dso}` — the TransferFactory.
 * - `Splice.AmuletTransferInstruction:AmuletTransferInstruction {lockedAmulet, transfer}` (signatories dso, sender;
 *   observer receiver) — the TransferInstruction.
 * - `Splice.AmuletRules:TransferPreapproval {dso, receiver, provider, validFrom, lastRenewedAt, expiresAt}`
 *   (signatories receiver, provider, dso); one-step transfers run `TransferPreapproval_SendV2` on it.
 * - `Splice.AmuletRules:AmuletRules {dso, isDevNet}` — reference data the factory reads from the choice context
 *   (`amulet-rules`), as Scan's context names it.
 * The sandbox has no mining rounds (every amulet is created in round 0) and no fees, burns or reward coupons.
 */
import {
  HOLDING_INTERFACE,
  TRANSFER_FACTORY_INTERFACE,
  TRANSFER_INSTRUCTION_INTERFACE,
} from '@quill/canton/token';
import type { Value } from '@quill/canton/transaction';
import { type Ctx, createNode, type Template } from '../daml.ts';
import { parseAmount } from '../decimal.ts';
import { valueToJson } from '../lfjson.ts';
import type { Contract, SandboxState } from '../state/index.ts';
import type { Implementation, Json } from './interfaces.ts';
import { findPreapproval, type Genesis, type HoldingFacts, type Registry } from './model.ts';
import { instructionView, type Transfer, transferOf, transferValue } from './standard.ts';
import { ident, timeOf, v } from './values.ts';

export const AMULET_PACKAGE = 'splice-amulet';
export const AMULET_PACKAGE_ID = 'fb10433a48c24f30076a7aee03a3e314b7ab02fe9a22e2069e3af92d2b6ac88a';
/** `holdingFee` of the default AmuletConfig, printed as Daml's `show` does in the Holding view's meta. */
const RATE = '0.0038051800';
const AMULET_META = 'amulet.splice.lfdecentralizedtrust.org/';
/** splice `tokenStandardMaxTTL` (since splice-amulet 0.1.21): 90 days. */
const MAX_TTL = 90n * 24n * 3600n * 1_000_000n;

const T = {
  Amulet: 'Splice.Amulet:Amulet',
  LockedAmulet: 'Splice.Amulet:LockedAmulet',
  ExternalPartyAmuletRules: 'Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
  AmuletTransferInstruction: 'Splice.AmuletTransferInstruction:AmuletTransferInstruction',
  TransferPreapproval: 'Splice.AmuletRules:TransferPreapproval',
  AmuletRules: 'Splice.AmuletRules:AmuletRules',
} as const;

const named = (q: string) => `#${AMULET_PACKAGE}:${q}`;

export function amuletTemplate(q: string): Template {
  const [moduleName = '', entityName = ''] = q.split(':');
  return {
    packageId: AMULET_PACKAGE_ID,
    packageName: AMULET_PACKAGE,
    moduleName,
    entityName,
    templateId: `${AMULET_PACKAGE_ID}:${q}`,
  };
}

const is = (c: Contract, q: string) => c.packageName === AMULET_PACKAGE && c.templateId.endsWith(`:${q}`);
const dsoOf = (state: SandboxState) => state.registries.get('amulet')?.admin ?? '';

/** `HoldingView.meta` of an amulet: its creation round and holding-fee rate (Splice.Amulet's Holding instance). */
function amuletMeta(amount: Json) {
  const round = (amount.createdAt as Json | undefined)?.number;
  const rate = String((amount.ratePerRound as Json | undefined)?.rate ?? '');
  return {
    values: {
      [`${AMULET_META}created-in-round`]: String(round),
      // `show` of a Decimal drops trailing zeros.
      [`${AMULET_META}rate-per-round`]: rate.replace(/\.?0+$/, ''),
    },
  };
}

function holdingView(amulet: Json, lock: unknown) {
  const amount = amulet.amount as Json;
  return {
    owner: amulet.owner,
    instrumentId: { admin: amulet.dso, id: 'Amulet' },
    amount: amount.initialAmount,
    lock,
    meta: amuletMeta(amount),
  };
}

const implementations: readonly Implementation[] = [
  { template: named(T.Amulet), interface: HOLDING_INTERFACE, view: (a) => holdingView(a, null) },
  {
    template: named(T.LockedAmulet),
    interface: HOLDING_INTERFACE,
    view: (a) => {
      const lock = a.lock as Json;
      return holdingView(a.amulet as Json, {
        holders: lock.holders,
        expiresAt: lock.expiresAt,
        expiresAfter: null,
        context: lock.optContext ?? null,
      });
    },
  },
  {
    template: named(T.ExternalPartyAmuletRules),
    interface: TRANSFER_FACTORY_INTERFACE,
    view: (a) => ({ admin: a.dso, meta: { values: {} } }),
  },
  {
    template: named(T.AmuletTransferInstruction),
    interface: TRANSFER_INSTRUCTION_INTERFACE,
    view: (a) => instructionView(a.transfer),
  },
];

function amuletValue(dso: string, owner: string, amount: bigint): Value {
  return v.record(
    {
      dso: v.party(dso),
      owner: v.party(owner),
      amount: v.record({
        initialAmount: v.numeric(amount),
        createdAt: v.record({ number: v.int(0n) }),
        ratePerRound: v.record({ rate: v.numeric(parseAmount(RATE) ?? 0n) }),
      }),
    },
    ident(`${AMULET_PACKAGE_ID}:${T.Amulet}`),
  );
}

function facts(amulet: Json, lock?: HoldingFacts['lock']): HoldingFacts | undefined {
  const units = parseAmount((amulet.amount as Json | undefined)?.initialAmount);
  if (units === undefined) return undefined;
  return {
    owner: String(amulet.owner),
    admin: String(amulet.dso),
    instrument: 'Amulet',
    amount: units,
    lock,
  };
}

export const AMULET: Registry = {
  key: 'amulet',
  packageName: AMULET_PACKAGE,
  packageId: AMULET_PACKAGE_ID,
  instrument: { id: 'Amulet', name: 'Amulet', symbol: 'AMT' },
  admin: dsoOf,
  factory: (state) => state.contracts.get(state.registries.get('amulet')?.contracts.factory ?? ''),
  implementations,
  templates: Object.values(T),
  requiredContext: ['amulet-rules'],
  maxTtlMicros: MAX_TTL,
  isFactory: (c) => is(c, T.ExternalPartyAmuletRules),
  holdingOf(c) {
    const a = valueToJson(c.argument) as Json;
    if (is(c, T.Amulet)) return facts(a);
    if (is(c, T.LockedAmulet)) {
      const lock = a.lock as Json;
      return facts(a.amulet as Json, {
        holders: (lock.holders as string[]) ?? [],
        expiresAt: timeOf(lock.expiresAt, 'lock.expiresAt'),
        context: typeof lock.optContext === 'string' ? lock.optContext : undefined,
      });
    }
    return undefined;
  },
  instructionOf(c) {
    if (!is(c, T.AmuletTransferInstruction)) return undefined;
    const a = valueToJson(c.argument) as Json;
    return { transfer: transferOf(a.transfer, 'transfer'), lockedHoldingCid: String(a.lockedAmulet) };
  },
  isPreapprovalFor: (c, receiver) =>
    is(c, T.TransferPreapproval) && (valueToJson(c.argument) as Json).receiver === receiver,
  holding(ctx, owner, amount) {
    const dso = dsoOf(ctx.state);
    return createNode(ctx, amuletTemplate(T.Amulet), amuletValue(dso, owner, amount), [dso, owner]);
  },
  lockedHolding(ctx, owner, amount, lock) {
    const dso = dsoOf(ctx.state);
    const argument = v.record(
      {
        amulet: amuletValue(dso, owner, amount),
        lock: v.record({
          holders: v.list(lock.holders.map(v.party)),
          expiresAt: v.time(lock.expiresAt),
          optContext: v.optional(lock.context === undefined ? undefined : v.text(lock.context)),
        }),
      },
      ident(`${AMULET_PACKAGE_ID}:${T.LockedAmulet}`),
    );
    return createNode(ctx, amuletTemplate(T.LockedAmulet), argument, [
      ...new Set([...lock.holders, dso, owner]),
    ]);
  },
  instruction(ctx: Ctx, transfer: Transfer, lockedHoldingCid: string) {
    const argument = v.record(
      { lockedAmulet: v.cid(lockedHoldingCid), transfer: transferValue(transfer) },
      ident(`${AMULET_PACKAGE_ID}:${T.AmuletTransferInstruction}`),
    );
    return createNode(
      ctx,
      amuletTemplate(T.AmuletTransferInstruction),
      argument,
      [dsoOf(ctx.state), transfer.sender],
      [transfer.receiver],
    );
  },
  sendViaPreapproval(ctx, preapproval, t, children, created) {
    const reason = t.meta['splice.lfdecentralizedtrust.org/reason'];
    const rules = ctx.state.registries.get('amulet')?.contracts.rules ?? '';
    return {
      kind: 'exercise',
      contractId: preapproval.contractId,
      packageName: preapproval.packageName,
      templateId: preapproval.templateId,
      signatories: preapproval.signatories,
      stakeholders: preapproval.stakeholders,
      actingParties: [t.sender],
      choice: 'TransferPreapproval_SendV2',
      choiceArgument: v.record({
        context: v.record({ amuletRules: v.cid(rules), featuredAppRight: v.optional(undefined) }),
        inputs: v.list(t.inputHoldingCids.map((cid) => v.variant('InputAmulet', v.cid(cid)))),
        amount: v.numeric(t.amount),
        sender: v.party(t.sender),
        description: v.optional(reason ? v.text(reason) : undefined),
        meta: v.optional(
          v.record({
            values: v.textMap(Object.fromEntries(Object.entries(t.meta).map(([k, x]) => [k, v.text(x)]))),
          }),
        ),
      }),
      consuming: false,
      children,
      result: v.record({
        result: v.record({
          round: v.record({ number: v.int(0n) }),
          createdAmulets: v.list([v.variant('TransferResultAmulet', v.cid(created.received))]),
          senderChangeAmulet: v.optional(created.change === undefined ? undefined : v.cid(created.change)),
        }),
        meta: v.record({
          values: v.textMap({
            ...(reason ? { 'splice.lfdecentralizedtrust.org/reason': v.text(reason) } : {}),
            'splice.lfdecentralizedtrust.org/sender': v.text(t.sender),
            'splice.lfdecentralizedtrust.org/tx-kind': v.text('transfer'),
          }),
        }),
      }),
    };
  },
  transferContext(state, t) {
    const record = state.registries.get('amulet');
    const disclose: Contract[] = [];
    const values: Record<string, Value> = {};
    const add = (key: string, c: Contract | undefined) => {
      if (!c) return;
      values[key] = v.variant('AV_ContractId', v.cid(c.contractId));
      disclose.push(c);
    };
    add('amulet-rules', state.contracts.get(record?.contracts.rules ?? ''));
    if (t.receiver !== t.sender) add('transfer-preapproval', findPreapproval(state, AMULET, t.receiver));
    return { values, disclose };
  },
};

/** AmuletRules and the factory, created by the DSO at start (registry/bootstrap.ts). */
export function amuletGenesis(dso: string): Genesis[] {
  const rec = (q: string, fields: Record<string, Value>) =>
    v.record(fields, ident(`${AMULET_PACKAGE_ID}:${q}`));
  return [
    {
      name: 'rules',
      template: amuletTemplate(T.AmuletRules),
      argument: rec(T.AmuletRules, { dso: v.party(dso), isDevNet: v.bool(true) }),
      signatories: [dso],
    },
    {
      name: 'factory',
      template: amuletTemplate(T.ExternalPartyAmuletRules),
      argument: rec(T.ExternalPartyAmuletRules, { dso: v.party(dso) }),
      signatories: [dso],
    },
  ];
}

/** A TransferPreapproval for `receiver` (provider: the DSO, valid a year). */
export function amuletPreapproval(dso: string, receiver: string, now: bigint): Genesis {
  return {
    name: 'preapproval',
    template: amuletTemplate(T.TransferPreapproval),
    argument: v.record(
      {
        dso: v.party(dso),
        receiver: v.party(receiver),
        provider: v.party(dso),
        validFrom: v.time(now),
        lastRenewedAt: v.time(now),
        expiresAt: v.time(now + 365n * 24n * 3600n * 1_000_000n),
      },
      ident(`${AMULET_PACKAGE_ID}:${T.TransferPreapproval}`),
    ),
    signatories: [receiver, dso],
  };
}

/** An amulet the DSO mints to `owner` (bootstrap.ts; DevNet taps in the real network). */
export function amuletHolding(dso: string, owner: string, amount: bigint): Genesis {
  return {
    name: 'holding',
    template: amuletTemplate(T.Amulet),
    argument: amuletValue(dso, owner, amount),
    signatories: [dso, owner],
  };
}
