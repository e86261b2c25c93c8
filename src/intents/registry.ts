// The token registries' off-ledger API (token standard V1, splice `splice-api-token-transfer-instruction-v1`
// openapi): the transfer factory with its choice context, and the contexts of an instruction's accept, reject and
// withdraw. Registries are found by the instrument's admin party (TOKEN_REGISTRY_URLS). What a registry answers is
// only an input to a prepare: the prepared transaction is verified before anything is signed.
import { echo } from '@quill/canton/errors';
import type { DisclosedContract } from '@quill/canton/ledger';
import { z } from 'zod';
import { SubmissionRefused } from '../submissions/index.ts';

const Disclosed = z.object({
  templateId: z.string().min(1),
  contractId: z.string().min(1),
  createdEventBlob: z.string().min(1),
  synchronizerId: z.string(),
});

const ChoiceContext = z.object({
  choiceContextData: z.object({ values: z.record(z.string(), z.unknown()).nullish() }).passthrough(),
  disclosedContracts: z.array(Disclosed.passthrough()),
});
export type ChoiceContext = z.infer<typeof ChoiceContext>;

const TransferFactoryAnswer = z.object({
  factoryId: z.string().min(1),
  transferKind: z.string(),
  choiceContext: ChoiceContext,
});
export type TransferFactoryAnswer = z.infer<typeof TransferFactoryAnswer>;

export type InstructionAction = 'accept' | 'reject' | 'withdraw';

/** The interface choice an action exercises: `TransferInstruction_Accept`, `…_Reject`, `…_Withdraw`. */
export function instructionChoice(action: InstructionAction): string {
  return `TransferInstruction_${action[0]?.toUpperCase()}${action.slice(1)}`;
}

/** A choice context is a few contracts' blobs: an answer larger than this is not one. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** The body as text, refused once it grows past `max` bytes (a registry is not trusted with our memory). */
async function bounded(res: Response, max: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new SubmissionRefused(502, 'REGISTRY_UNAVAILABLE', `a registry answered more than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface RegistryOptions {
  /** Base URL by admin party (clients append `/registry/…`). */
  urls: Readonly<Record<string, string>>;
  timeoutMs: number;
}

/** Only what the ledger's prepare takes (the registries add debug fields unless told not to). */
export function disclosedForPrepare(ctx: ChoiceContext): DisclosedContract[] {
  return ctx.disclosedContracts.map((d) => ({
    templateId: d.templateId,
    contractId: d.contractId,
    createdEventBlob: d.createdEventBlob,
    synchronizerId: d.synchronizerId,
  }));
}

export class RegistryClient {
  constructor(private readonly o: RegistryOptions) {}

  /** Whether a registry is configured for instruments of `admin`. */
  knows(admin: string): boolean {
    return this.o.urls[admin] !== undefined;
  }

  /** The factory to exercise `TransferFactory_Transfer` on, and its context (POST …/transfer-factory). */
  transferFactory(admin: string, choiceArguments: unknown): Promise<TransferFactoryAnswer> {
    return this.call(
      admin,
      '/registry/transfer-instruction/v1/transfer-factory',
      { choiceArguments, excludeDebugFields: true },
      TransferFactoryAnswer,
    );
  }

  /** The context of `TransferInstruction_<Action>` on an instruction (POST …/{cid}/choice-contexts/{action}). */
  instructionContext(admin: string, cid: string, action: InstructionAction): Promise<ChoiceContext> {
    return this.call(
      admin,
      `/registry/transfer-instruction/v1/${encodeURIComponent(cid)}/choice-contexts/${action}`,
      { meta: {}, excludeDebugFields: true },
      ChoiceContext,
    );
  }

  private async call<T>(admin: string, path: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
    const base = this.o.urls[admin];
    if (base === undefined) {
      throw new SubmissionRefused(
        422,
        'UNKNOWN_REGISTRY',
        `no registry is configured for instruments of admin ${echo(admin)} (TOKEN_REGISTRY_URLS)`,
      );
    }
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.o.timeoutMs),
        redirect: 'error',
      });
      text = await bounded(res, MAX_ANSWER_BYTES);
    } catch (err) {
      if (err instanceof SubmissionRefused) throw err;
      throw new SubmissionRefused(
        502,
        'REGISTRY_UNAVAILABLE',
        `the registry of ${echo(admin)} did not answer (${(err as Error).name}): retry later`,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (res.status >= 500 || (res.ok && json === undefined)) {
      throw new SubmissionRefused(
        502,
        'REGISTRY_UNAVAILABLE',
        `the registry of ${echo(admin)} answered ${res.status} without a usable body: retry later`,
      );
    }
    if (!res.ok) {
      const said = (json as { error?: unknown } | undefined)?.error;
      throw new SubmissionRefused(
        422,
        'REGISTRY_REFUSED',
        `the registry of ${echo(admin)} refused (${res.status}): ${typeof said === 'string' ? echo(said) : 'no reason given'}`,
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new SubmissionRefused(
        502,
        'REGISTRY_UNAVAILABLE',
        `the registry of ${echo(admin)} answered an unexpected shape (${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'})`,
      );
    }
    return parsed.data;
  }
}
