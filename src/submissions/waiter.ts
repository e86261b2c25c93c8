// Waits for a record to reach a terminal state: Redis pub/sub for promptness, a slow poll as the safety net
// (a message published while the subscriber reconnects is simply missed).
import type { Redis } from 'ioredis';
import { isTerminal, type SubmissionRecord } from './record.ts';
import { StoreError, type SubmissionStore } from './store.ts';

export class OutcomeWaiter {
  private readonly waiting = new Map<string, Set<() => void>>();
  private started: Promise<void> | undefined;

  constructor(
    private readonly subscriber: Redis,
    private readonly store: SubmissionStore,
    private readonly pollMs = 1000,
  ) {}

  private start(): Promise<void> {
    this.started ??= (async () => {
      if (this.subscriber.listenerCount('message') === 0) {
        this.subscriber.on('message', (_channel: string, id: string) => {
          for (const wake of this.waiting.get(id) ?? []) wake();
        });
      }
      await this.subscriber.subscribe(this.store.doneChannel);
    })().catch((err) => {
      this.started = undefined; // the next wait tries again
      throw new StoreError('UNAVAILABLE', 'cannot subscribe to outcomes', { cause: err });
    });
    return this.started;
  }

  /** The record once terminal, or its latest state when `timeoutMs` runs out. */
  async wait(id: string, timeoutMs: number): Promise<SubmissionRecord | undefined> {
    await this.start();
    const deadline = Date.now() + timeoutMs;
    let rec = await this.store.getRecord(id);
    while (rec && !isTerminal(rec.status) && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const set = this.waiting.get(id) ?? new Set();
        this.waiting.set(id, set);
        const done = () => {
          clearTimeout(timer);
          set.delete(done);
          if (set.size === 0) this.waiting.delete(id);
          resolve();
        };
        const timer = setTimeout(done, Math.min(this.pollMs, Math.max(1, deadline - Date.now())));
        set.add(done);
      });
      rec = await this.store.getRecord(id);
    }
    return rec;
  }

  async close(): Promise<void> {
    for (const set of this.waiting.values()) for (const wake of set) wake();
    this.subscriber.disconnect();
  }
}
