/**
 * Faults on demand for testing the wallet: added latency, 503 text/plain and 504 REQUEST_TIME_OUT answers,
 * timeouts after committing (the ambiguous case: commit, then 504, 503 text or a dropped socket), dropped
 * connections, SUBMISSION_ALREADY_IN_FLIGHT, a pause of the whole ledger, and a dishonest prepare (`tamperPrepare`:
 * a valid prepared transaction of something other than what was asked). Rules select endpoints (exact
 * path, or prefix ending in `*`), fire with a probability drawn from a seeded generator, and may be limited
 * to a number of times.
 */
export type FaultKind =
  | 'latency'
  | 'unavailable'
  | 'timeout'
  | 'timeoutAfterCommit'
  | 'drop'
  | 'inFlight'
  | 'tamperPrepare';

/**
 * What `tamperPrepare` changes in a prepare request before preparing it: the amount and receiver of every
 * `TransferFactory_Transfer` (in `transfer`) and demo-coin `Holding_Transfer` exercise, and extra commands and
 * disclosed contracts appended. The answer is an honest preparation of the tampered request, correct hash included,
 * which only a wallet that checks the transaction against its request can catch.
 */
export interface PrepareTamper {
  amount?: string;
  receiver?: string;
  appendCommands?: unknown[];
  appendDisclosedContracts?: unknown[];
}

export interface FaultRule {
  kind: FaultKind;
  /** Path such as `/v2/interactive-submission/executeAndWaitForTransaction` or a prefix with `*`; all if unset. */
  endpoint?: string;
  /** 0..1, default 1. */
  probability?: number;
  /** Fire at most this many times (unlimited if unset). */
  times?: number;
  /** For `latency`. */
  latencyMs?: number;
  /** For `timeoutAfterCommit`: how the ambiguous answer looks (default 504). */
  answer?: '504' | '503' | 'drop';
  /** For `tamperPrepare`. */
  tamper?: PrepareTamper;
}

export interface FaultConfig {
  rules?: FaultRule[];
  paused?: boolean;
  seed?: number;
}

/** mulberry32: small, seedable, good enough to make fault schedules reproducible. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const UNAVAILABLE_TEXT =
  'The server was not able to produce a timely response to your request.\r\nPlease try again in a short while!';

export class Faults {
  private rules: (FaultRule & { fired: number })[] = [];
  private random: () => number = prng(1);
  private pausedFlag = false;
  private waiters: (() => void)[] = [];
  /** How many times each kind fired. */
  readonly injected: Record<string, number> = {};

  constructor(config: FaultConfig = {}) {
    this.configure(config);
  }

  configure(config: FaultConfig): void {
    this.rules = (config.rules ?? []).map((r) => ({ ...r, fired: 0 }));
    this.random = prng(config.seed ?? 1);
    if (config.paused !== undefined) this.setPaused(config.paused);
  }

  describe(): { rules: FaultRule[]; paused: boolean; injected: Record<string, number> } {
    return {
      rules: this.rules.map(({ fired: _f, ...r }) => r),
      paused: this.pausedFlag,
      injected: { ...this.injected },
    };
  }

  get paused(): boolean {
    return this.pausedFlag;
  }

  setPaused(paused: boolean): void {
    this.pausedFlag = paused;
    if (!paused) {
      const w = this.waiters;
      this.waiters = [];
      for (const resolve of w) resolve();
    }
  }

  /** Resolves once the ledger is not paused. */
  async whileUnpaused(): Promise<void> {
    while (this.pausedFlag) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** The first rule of `kind` that fires for `path` now (consumes one of its `times`). */
  pick(kind: FaultKind, path: string): FaultRule | undefined {
    for (const r of this.rules) {
      if (r.kind !== kind || !matches(r.endpoint, path)) continue;
      if (r.times !== undefined && r.fired >= r.times) continue;
      if (this.random() >= (r.probability ?? 1)) continue;
      r.fired += 1;
      this.injected[kind] = (this.injected[kind] ?? 0) + 1;
      return r;
    }
    return undefined;
  }
}

function matches(endpoint: string | undefined, path: string): boolean {
  if (endpoint === undefined || endpoint === '*') return true;
  return endpoint.endsWith('*') ? path.startsWith(endpoint.slice(0, -1)) : endpoint === path;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The prepare request `req` (decoded JSON) rewritten as `tamper` says, as new JSON: the caller decodes it again, so
 * appended commands meet the same decoder and rules as the participant's.
 */
export function tamperPrepareRequest(req: unknown, tamper: PrepareTamper): Json {
  const out = structuredClone(req) as Json;
  const commands = Array.isArray(out.commands) ? out.commands : [];
  for (const command of commands) {
    const ex = isObject(command) ? command.ExerciseCommand : undefined;
    if (!isObject(ex) || !isObject(ex.choiceArgument)) continue;
    const target =
      ex.choice === 'TransferFactory_Transfer'
        ? ex.choiceArgument.transfer
        : ex.choice === 'Holding_Transfer'
          ? ex.choiceArgument
          : undefined;
    if (!isObject(target)) continue;
    if (tamper.amount !== undefined) target.amount = tamper.amount;
    if (tamper.receiver !== undefined) target.receiver = tamper.receiver;
  }
  out.commands = [...commands, ...structuredClone(tamper.appendCommands ?? [])];
  if (tamper.appendDisclosedContracts?.length) {
    const disclosed = Array.isArray(out.disclosedContracts) ? out.disclosedContracts : [];
    out.disclosedContracts = [...disclosed, ...structuredClone(tamper.appendDisclosedContracts)];
  }
  return out;
}
