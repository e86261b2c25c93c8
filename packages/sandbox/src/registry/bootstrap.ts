/**
 * The registries at start: their admin parties (`DSO`, `registrar`), their packages uploaded and vetted on every
 * participant and synchronizer (splice-amulet with its real package id), and their reference contracts (Amulet's
 * AmuletRules and ExternalPartyAmuletRules, the stablecoin's TransferFactory) created by the admin. Also what the
 * demo and tests do as an admin: mint holdings and grant pre-approvals.
 */
import { parseAmount } from '../decimal.ts';
import { commitNodes } from '../internal.ts';
import type { SandboxState, TransactionUpdate } from '../state/index.ts';
import { AMULET, amuletGenesis, amuletHolding, amuletPreapproval } from './amulet.ts';
import type { Genesis, Registry } from './model.ts';
import { REGISTRIES, registryByKey } from './registries.ts';
import { STABLECOIN, stablecoinGenesis, stablecoinHolding, stablecoinPreapproval } from './stablecoin.ts';

const HINTS: Record<string, string> = { amulet: 'DSO', usdq: 'registrar' };

function commitGenesis(
  state: SandboxState,
  reg: Registry,
  contracts: Genesis[],
  commandId: string,
): TransactionUpdate {
  const admin = reg.admin(state);
  const roots = contracts.map((g) => ({
    kind: 'create' as const,
    contractId: state.newContractId(),
    packageName: g.template.packageName,
    templateId: g.template.templateId,
    argument: g.argument,
    signatories: g.signatories,
    stakeholders: [...new Set([...g.signatories, ...(g.observers ?? [])])],
  }));
  const actAs = [...new Set([admin, ...contracts.flatMap((g) => g.signatories)])];
  return commitNodes(state, roots, actAs, commandId);
}

/** Idempotent. */
export function bootstrapRegistries(state: SandboxState): void {
  for (const reg of REGISTRIES) {
    if (state.registries.has(reg.key)) continue;
    const admin = state.allocateLocalParty(HINTS[reg.key] ?? reg.key).partyId;
    state.registries.set(reg.key, { admin, contracts: {} });
    const pkg = state.packages.upload(reg.packageName, '1.0.0', true, reg.packageId);
    for (const q of reg.templates) state.packages.addTemplate(reg.packageName, q);
    for (const p of [state.participantId, ...state.otherParticipants])
      for (const s of state.synchronizers) state.packages.vet(p, s.id, { packageId: pkg.packageId });
    const genesis = reg === AMULET ? amuletGenesis(admin) : stablecoinGenesis(admin);
    const tx = commitGenesis(state, reg, genesis, `quill-sandbox-registry-${reg.key}`);
    const record = state.registries.get(reg.key)!;
    genesis.forEach((g, i) => {
      const n = tx.nodes[i];
      if (n) record.contracts[g.name] = n.contract.contractId;
    });
  }
}

function registry(key: string): Registry {
  const reg = registryByKey(key);
  if (!reg) throw new Error(`unknown registry ${key}`);
  return reg;
}

/** The admin mints `amount` (Numeric 10 text) of its instrument to `owner`; returns the holding's contract id. */
export function mintHolding(
  state: SandboxState,
  key: 'amulet' | 'usdq',
  owner: string,
  amount: string,
): string {
  const reg = registry(key);
  const units = parseAmount(amount);
  if (units === undefined || units <= 0n) throw new Error(`invalid amount ${amount}`);
  const admin = reg.admin(state);
  const g = reg === STABLECOIN ? stablecoinHolding(admin, owner, units) : amuletHolding(admin, owner, units);
  const tx = commitGenesis(state, reg, [g], `quill-sandbox-mint-${state.newUpdateId().slice(0, 16)}`);
  return tx.nodes[0]?.contract.contractId ?? '';
}

/** A pre-approval of `receiver` for one-step transfers of a registry's instrument; returns its contract id. */
export function grantPreapproval(state: SandboxState, key: 'amulet' | 'usdq', receiver: string): string {
  const reg = registry(key);
  const admin = reg.admin(state);
  const g =
    reg === STABLECOIN
      ? stablecoinPreapproval(admin, receiver)
      : amuletPreapproval(admin, receiver, state.nowMicros());
  const tx = commitGenesis(state, reg, [g], `quill-sandbox-preapproval-${state.newUpdateId().slice(0, 16)}`);
  return tx.nodes[0]?.contract.contractId ?? '';
}
