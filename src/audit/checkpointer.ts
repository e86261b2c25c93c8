// Takes the audit chain's checkpoints (checkpoint.ts) and ships them out of Redis: appended to a file of JSON lines
// (opened to append, fsync'd after each line, mode 0600, never rewritten) and, best effort, POSTed to a webhook.
// One process takes them (the worker holding the leader lease), and only when the head moved.
import { type FileHandle, open } from 'node:fs/promises';
import type { Log } from '../log.ts';
import { type RawSigner, signStatement } from '../signing/index.ts';
import { type Checkpoint, checkpointMessage, parseCheckpoints } from './checkpoint.ts';
import type { AuditLog } from './log.ts';

export interface CheckpointerOptions {
  audit: AuditLog;
  /** The key ring holding the audit key. */
  signer: RawSigner;
  /** The audit key's fingerprint. */
  key: string;
  file: string;
  webhookUrl?: string;
  /** Webhook retries: the first delay, doubled up to `maxDelayMs`; a checkpoint waiting behind `maxQueued` others is dropped. */
  webhook?: { baseDelayMs?: number; maxDelayMs?: number; timeoutMs?: number; maxQueued?: number };
  log: Log;
}

export type CheckpointFailure = 'chain' | 'sign' | 'file' | 'webhook';

/** The tail read to find the newest checkpoint written before (a line is ~400 bytes). */
const TAIL_BYTES = 16 * 1024;

export class AuditCheckpointer {
  readonly #o: CheckpointerOptions;
  /** The newest checkpoint in the file (written by this process, or found there at start). */
  #last: Checkpoint | undefined;
  #running: Promise<unknown> = Promise.resolve();
  #outbox: Checkpoint[] = [];
  #delivering: Promise<void> | undefined;
  #closed = false;
  #opened = false;
  /** Aborts a delivery in flight at close. */
  readonly #abort = new AbortController();
  #wake: (() => void) | undefined;
  /** Failures by where they happened (metrics). */
  readonly failures: Record<CheckpointFailure, number> = { chain: 0, sign: 0, file: 0, webhook: 0 };
  /** Checkpoints delivered to the webhook. */
  delivered = 0;

  constructor(o: CheckpointerOptions) {
    this.#o = o;
  }

  /** The newest checkpoint written (or found in the file at start). */
  get last(): Checkpoint | undefined {
    return this.#last;
  }

  /**
   * Checks the file opens for appending (created 0600 when missing) and learns the newest checkpoint in it, so a
   * restart does not sign the same head again. `checkpoint()` calls it first.
   */
  async open(): Promise<void> {
    const fh = await open(this.#o.file, 'a+', 0o600);
    try {
      const { size } = await fh.stat();
      const length = Math.min(size, TAIL_BYTES);
      const buf = Buffer.alloc(length);
      await fh.read(buf, 0, length, size - length);
      const lines = buf.toString('utf8').split('\n').filter(Boolean);
      const parsed = parseCheckpoints(lines.at(-1) ?? '');
      // A last line that does not parse (torn by a crash) is left alone: the next checkpoint follows it.
      if (parsed.ok) this.#last = parsed.checkpoints.at(-1)?.checkpoint;
    } finally {
      await fh.close();
    }
  }

  /** Takes a checkpoint if the head moved since the last one; one at a time. */
  checkpoint(): Promise<Checkpoint | undefined> {
    const run = this.#running.then(async () => {
      if (!this.#opened) {
        await this.open().catch((err) => {
          this.failures.file++;
          throw err;
        });
        this.#opened = true;
      }
      return this.#take();
    });
    this.#running = run.catch(() => {});
    return run;
  }

  async #take(): Promise<Checkpoint | undefined> {
    const tip = await this.#o.audit.tip();
    const count = tip?.count ?? 0;
    if (this.#last && count < this.#last.count) {
      // The chain is shorter than it was signed at: entries were cut off. Say so now; `verify` names it too.
      this.failures.chain++;
      this.#o.log('error', 'audit chain: fewer entries than the last checkpoint (entries were deleted)', {
        count,
        checkpointCount: this.#last.count,
      });
    }
    if (!tip || tip.head === this.#last?.head) return undefined;
    const body = { v: 1 as const, ...tip, at: new Date().toISOString(), key: this.#o.key };
    let signature: Uint8Array;
    try {
      ({ signature } = await signStatement(this.#o.signer, this.#o.key, checkpointMessage(body)));
    } catch (err) {
      this.failures.sign++;
      throw err;
    }
    const checkpoint: Checkpoint = { ...body, signature: Buffer.from(signature).toString('base64') };
    try {
      await appendLine(this.#o.file, `${JSON.stringify(checkpoint)}\n`);
    } catch (err) {
      this.failures.file++;
      throw err;
    }
    this.#last = checkpoint;
    if (this.#o.webhookUrl) this.#post(checkpoint);
    return checkpoint;
  }

  /** Queues `c` for the webhook; the file never waits for it. */
  #post(c: Checkpoint): void {
    const max = this.#o.webhook?.maxQueued ?? 1000;
    if (this.#outbox.length >= max) {
      this.#outbox.shift();
      this.failures.webhook++;
      this.#o.log(
        'warn',
        'audit checkpoint webhook: too many undelivered, the oldest dropped (the file has it)',
      );
    }
    this.#outbox.push(c);
    this.#wake?.();
    this.#delivering ??= this.#deliver();
  }

  /** Delivers the queue in order, each until it is accepted (a 2xx), backing off between tries. */
  async #deliver(): Promise<void> {
    const base = this.#o.webhook?.baseDelayMs ?? 1000;
    const maxDelay = this.#o.webhook?.maxDelayMs ?? 60_000;
    const timeoutMs = this.#o.webhook?.timeoutMs ?? 10_000;
    let delay = base;
    while (!this.#closed) {
      const next = this.#outbox[0];
      if (!next) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        this.#wake = undefined;
        continue;
      }
      let problem: string | undefined;
      try {
        const res = await fetch(this.#o.webhookUrl as string, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(next),
          redirect: 'manual',
          signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), this.#abort.signal]),
        });
        await res.body?.cancel();
        if (res.status < 200 || res.status > 299) problem = `answered ${res.status}`;
      } catch (err) {
        problem = (err as Error).message;
      }
      if (this.#closed) break;
      if (problem === undefined) {
        if (this.#outbox[0] === next) this.#outbox.shift();
        this.delivered++;
        delay = base;
        continue;
      }
      this.failures.webhook++;
      this.#o.log('warn', `audit checkpoint webhook: ${problem}; retrying in ${delay} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, delay);
        t.unref();
        this.#wake = () => {
          if (this.#closed) {
            clearTimeout(t);
            resolve();
          }
        };
      });
      this.#wake = undefined;
      delay = Math.min(maxDelay, delay * 2);
    }
  }

  /**
   * Clean shutdown: a last checkpoint if the head moved (when `final`), then the webhook gets `graceMs` to take
   * what is queued.
   */
  async close(o: { final: boolean; graceMs?: number }): Promise<void> {
    try {
      if (o.final) await this.checkpoint();
    } finally {
      const grace = o.graceMs ?? 2000;
      const until = Date.now() + grace;
      while (this.#outbox.length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      this.#closed = true;
      this.#abort.abort();
      this.#wake?.();
      await this.#delivering;
    }
  }
}

/** Appends one line and waits until it is on disk. */
async function appendLine(file: string, line: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(file, 'a', 0o600);
    await fh.write(line);
    await fh.sync();
  } finally {
    await fh?.close();
  }
}
