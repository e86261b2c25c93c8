/**
 * What the shared transfer logic (engine.ts) needs to know of one registry: its identity, how to read its holdings
 * and instructions, and how to create them. Each registry (amulet.ts, stablecoin.ts) has its own templates and
 * field names; the token standard's behaviour is the same.
 */
import type { Value } from '@quill/canton/transaction';
import type { BuildCreate, BuildExercise, BuildNode } from '../build/index.ts';
import type { Ctx, Template } from '../daml.ts';
import type { Contract, SandboxState } from '../state/index.ts';
import type { Implementation } from './interfaces.ts';
import type { Transfer } from './standard.ts';

export interface Lock {
  holders: string[];
  /** Microseconds; the lock has expired once ledger time reaches it (`expiresAt` is inclusive). */
  expiresAt?: bigint;
  context?: string;
}

export interface HoldingFacts {
  owner: string;
  admin: string;
  instrument: string;
  amount: bigint;
  lock?: Lock;
}

export interface InstructionFacts {
  transfer: Transfer;
  lockedHoldingCid: string;
}

export interface Registry {
  /** Short name for logs and URLs. */
  key: string;
  packageName: string;
  packageId: string;
  instrument: { id: string; name: string; symbol: string };
  /** The admin party (set at bootstrap). */
  admin(state: SandboxState): string;
  /** The TransferFactory contract (set at bootstrap). */
  factory(state: SandboxState): Contract | undefined;
  implementations: readonly Implementation[];
  /** Qualified names (`Module:Entity`) of the package's templates. */
  templates: readonly string[];
  isFactory(c: Contract): boolean;
  holdingOf(c: Contract): HoldingFacts | undefined;
  instructionOf(c: Contract): InstructionFacts | undefined;
  /** Whether `c` is this registry's pre-approval for `receiver`. */
  isPreapprovalFor(c: Contract, receiver: string): boolean;
  holding(ctx: Ctx, owner: string, amount: bigint): BuildCreate;
  lockedHolding(
    ctx: Ctx,
    owner: string,
    amount: bigint,
    lock: Required<Pick<Lock, 'holders' | 'expiresAt'>> & Lock,
  ): BuildCreate;
  instruction(ctx: Ctx, transfer: Transfer, lockedHoldingCid: string): BuildCreate;
  /**
   * A one-step transfer as the registry runs it on the receiver's pre-approval (Amulet:
   * `TransferPreapproval_SendV2`, whose node the receiver witnesses), wrapping `children` (the archives of the
   * inputs and the new holdings); without it the children sit under the factory's exercise.
   */
  sendViaPreapproval?(
    ctx: Ctx,
    preapproval: Contract,
    transfer: Transfer,
    children: BuildNode[],
    created: { received: string; change?: string },
  ): BuildExercise;
  /**
   * The choice context the registry's off-ledger API hands out for a transfer (keys → contract ids; the contracts
   * are disclosed) and what the factory choice requires of it.
   */
  transferContext(
    state: SandboxState,
    transfer: Transfer,
  ): { values: Record<string, Value>; disclose: Contract[] };
  /** Context keys the factory choice must find (reference data read by the choice). */
  requiredContext: readonly string[];
  /** The longest `executeBefore - requestedAt` the registry accepts (Amulet: tokenStandardMaxTTL). */
  maxTtlMicros?: bigint;
}

/** A contract a registry's admin creates on its own (at start, or for a test): what bootstrap.ts commits. */
export interface Genesis {
  name: string;
  template: Template;
  argument: Value;
  signatories: string[];
  observers?: string[];
}

/** The receiver's active pre-approval of a registry, if any (Scan: `/v0/transfer-preapprovals/by-party`). */
export function findPreapproval(state: SandboxState, reg: Registry, receiver: string): Contract | undefined {
  for (const c of state.contracts.values())
    if (c.archivedOffset === undefined && !c.unassigned && reg.isPreapprovalFor(c, receiver)) return c;
  return undefined;
}
