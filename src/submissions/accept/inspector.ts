// The one place that decides where an input is read: a prepared transaction to accept, approve or evaluate, a
// stored one to preview, and a request body. Below the inspection pool's threshold, inline (faster); at or above
// it, on the pool's threads, so nothing large runs on the request thread (issue 12 finding 1, issue 29 item 10).
import type { HoldingRecognizer } from '../../policy/index.ts';
import type { HashingSchemeVersion } from '../record.ts';
import { inspectPrepared, type ParsedBody, parseBody, previewStored, type StoredPreview } from './inspect.ts';
import type { InspectPool } from './pool.ts';
import type { InspectedTransaction } from './types.ts';

export interface InspectorOptions {
  /** How the policy's facts and previews value holdings (the composition root's recognizer table). */
  holdings: readonly HoldingRecognizer[];
  /** Inputs of at least `offloadChars` characters (a transaction's base64) or bytes (a body) go to `pool`. */
  pool?: { pool: InspectPool; offloadChars: number } | undefined;
}

export class Inspector {
  readonly #holdings: readonly HoldingRecognizer[];
  readonly #pool: InspectorOptions['pool'];

  constructor(opts: InspectorOptions) {
    this.#holdings = opts.holdings;
    this.#pool = opts.pool;
  }

  #offloads(size: number): InspectPool | undefined {
    return this.#pool && size >= this.#pool.offloadChars ? this.#pool.pool : undefined;
  }

  /** Strict decode, recomputed hash, the checks' metadata (accept, approvals, policy evaluation). */
  inspect(b64: string, scheme: HashingSchemeVersion): InspectedTransaction | Promise<InspectedTransaction> {
    return this.#offloads(b64.length)?.inspect(b64, scheme) ?? inspectPrepared(b64, scheme, this.#holdings);
  }

  /** A stored transaction's preview, serialized (GET …/submissions/{id}/preview, and the console through it). */
  async preview(b64: string, scheme: HashingSchemeVersion): Promise<StoredPreview> {
    return this.#offloads(b64.length)?.preview(b64, scheme) ?? previewStored(b64, scheme, this.#holdings);
  }

  /** Whether a request body of `bytes` is parsed by `parseBody` on the pool (else the app reads it inline). */
  parsesOffThread(bytes: number): boolean {
    return this.#offloads(bytes) !== undefined;
  }

  /** A request body decoded, depth-checked and parsed: on the pool when `parsesOffThread`, else here. */
  async parseBody(bytes: Uint8Array): Promise<ParsedBody> {
    return this.#offloads(bytes.length)?.parseJson(bytes) ?? parseBody(bytes);
  }
}
