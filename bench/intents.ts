// The pipeline benchmark's intents phase (bench/pipeline.ts): transfer intents (POST /wallet/v1/transfers) from
// sending parties funded with many holdings of the sandbox's registries, to receivers that pre-approved them, so
// that every intent is a one-step transfer Quill picks holdings for, asks the registry and the participant about,
// checks, signs and submits. The sandbox is in this process (`mintHolding`, `grantPreapproval`) or its own
// (`quill sandbox`: the same through its /admin/registries routes).
import { grantPreapproval, mintHolding, type Sandbox } from '@quill/sandbox';

export type RegistryKey = 'amulet' | 'usdq';

export interface BenchRegistry {
  admin: string;
  instrumentId: { admin: string; id: string };
  registryUrl: string;
}

/** What the intents phase needs of the sandbox, in whichever process it runs. */
export interface SandboxFunding {
  registries: Record<RegistryKey, BenchRegistry>;
  /** `count` holdings of `amount` each for `owner`. */
  mint(key: RegistryKey, owner: string, amount: string, count: number): Promise<void>;
  /** One-step transfers of the instrument to `receiver` (transferKind "direct"). */
  preapprove(key: RegistryKey, receiver: string): Promise<void>;
}

async function adminCall(url: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  if (!res.ok) throw new Error(`sandbox ${path} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return res.json();
}

/** In process: the state's own functions; else the admin routes of a sandbox started with --no-auth. */
export async function sandboxFunding(sandbox: Sandbox | { url: string }): Promise<SandboxFunding> {
  if ('state' in sandbox) {
    const { state } = sandbox;
    return {
      registries: sandbox.registries,
      mint: async (key, owner, amount, count) => {
        for (let i = 0; i < count; i++) mintHolding(state, key, owner, amount);
      },
      preapprove: async (key, receiver) => {
        grantPreapproval(state, key, receiver);
      },
    };
  }
  const { url } = sandbox;
  return {
    registries: (await adminCall(url, '/admin/registries')) as Record<RegistryKey, BenchRegistry>,
    mint: async (key, owner, amount, count) => {
      // At most 10,000 per call (the route's limit).
      for (let left = count; left > 0; left -= 10_000)
        await adminCall(url, `/admin/registries/${key}/mint`, {
          owner,
          amount,
          count: Math.min(left, 10_000),
        });
    },
    preapprove: async (key, receiver) => {
      await adminCall(url, `/admin/registries/${key}/preapprovals`, { receiver });
    },
  };
}

export interface IntentPlan {
  senders: string[];
  receivers: string[];
  keys: RegistryKey[];
  /** Holdings of each instrument each sender gets, each worth `holdingAmount`. */
  holdingsPerSender: number;
  holdingAmount: string;
  /** Each intent sends this much (less than a holding: one input, change back). */
  amount: string;
}

/**
 * How to fund `n` intents over `senders` parties alternating `keys`: every intent spends one fresh holding, so
 * none waits for the change of another to be indexed; a few spare holdings cover a pick that lost a race.
 */
export function planIntents(
  n: number,
  senders: string[],
  receivers: string[],
  keys: RegistryKey[],
): IntentPlan {
  const perSenderPerKey = Math.ceil(n / senders.length / keys.length);
  return {
    senders,
    receivers,
    keys,
    holdingsPerSender: perSenderPerKey + 8,
    holdingAmount: '10',
    amount: '1',
  };
}

/** Intent i of the plan: sender, receiver and instrument spread evenly. */
export function intentBody(plan: IntentPlan, registries: Record<RegistryKey, BenchRegistry>, i: number) {
  const key = plan.keys[i % plan.keys.length] as RegistryKey;
  return {
    party: plan.senders[i % plan.senders.length] as string,
    receiver: plan.receivers[i % plan.receivers.length] as string,
    instrument: registries[key].instrumentId,
    amount: plan.amount,
    memo: `bench ${i}`,
  };
}

/** Mints every sender's holdings and pre-approves every receiver for every instrument of the plan. */
export async function fund(plan: IntentPlan, sandbox: SandboxFunding): Promise<void> {
  for (const key of plan.keys) {
    for (const r of plan.receivers) await sandbox.preapprove(key, r);
    for (const s of plan.senders) await sandbox.mint(key, s, plan.holdingAmount, plan.holdingsPerSender);
  }
}

/** Resolves once the wallet's index shows every sender's minted holdings (the watcher has read them). */
export async function untilIndexed(
  plan: IntentPlan,
  registries: Record<RegistryKey, BenchRegistry>,
  holdingsOf: (party: string) => Promise<readonly { instrument: { admin: string; id: string } }[]>,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const s of plan.senders) {
    for (;;) {
      const held = await holdingsOf(s);
      const short = plan.keys.filter(
        (k) =>
          held.filter(
            (h) =>
              h.instrument.admin === registries[k].instrumentId.admin &&
              h.instrument.id === registries[k].instrumentId.id,
          ).length < plan.holdingsPerSender,
      );
      if (short.length === 0) break;
      if (Date.now() > deadline)
        throw new Error(`the wallet's index did not show ${s}'s ${short.join(', ')} holdings in time`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
