// Waits for a submission to become final: one reader per process follows the outbox (a durable stream, so
// an entry written while the reader reconnects is still read), and every wait also re-reads the record at
// least every `pollMs`, so a final state reached before the wait began is seen at once.
import type { Redis } from 'ioredis';
import { type Running, startConsumer } from '../redis/consumer.ts';
import { isTerminal, type SubmissionRecord } from './record.ts';
import { decodeOutboxEntry, type SubmissionStore } from './store/index.ts';

export class OutcomeWaiter {
  private readonly waiting = new Map<string, Set<() => void>>();
  private following: Running | undefined;
  private closed = false;

  /** `reader` is a connection of its own: reading the outbox blocks it. */
  constructor(
    private readonly reader: Redis,
    private readonly store: SubmissionStore,
    private readonly pollMs = 1000,
  ) {}

  /** Follows the outbox from its current end until `close`, waking the waits for each record it names. */
  private follow(): void {
    this.following ??= startConsumer({
      name: 'outcome waiter',
      redis: this.store.redis,
      reader: this.reader,
      stream: this.store.keys.outbox,
      cursor: 'memory',
      pollMs: this.pollMs,
      batch: 100,
      handle: async (entries) => {
        for (const { id, fields } of entries) {
          const e = decodeOutboxEntry(id, fields);
          // Creation and approval entries are not outcomes: only a final entry wakes a wait.
          if (!isTerminal(e.status)) continue;
          for (const wake of this.waiting.get(e.id) ?? []) wake();
        }
      },
      // Redis unavailable: waits keep polling the record; the outbox is read again shortly.
      onError: () => {},
    });
  }

  /** The record once final, or its latest state when `timeoutMs` runs out. */
  async wait(id: string, timeoutMs: number): Promise<SubmissionRecord | undefined> {
    this.follow();
    const deadline = Date.now() + timeoutMs;
    let wake: () => void = () => {};
    const set = this.waiting.get(id) ?? new Set();
    this.waiting.set(id, set);
    const forget = () => {
      set.delete(wake);
      if (set.size === 0) this.waiting.delete(id);
    };
    try {
      // Registered before the first read: a final entry written after that read still wakes this wait.
      let rec = await this.store.getRecord(id);
      while (rec && !isTerminal(rec.status) && Date.now() < deadline && !this.closed) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(this.pollMs, Math.max(1, deadline - Date.now())));
          function done() {
            clearTimeout(timer);
            resolve();
          }
          set.delete(wake);
          wake = done;
          set.add(wake);
        });
        rec = await this.store.getRecord(id);
      }
      return rec;
    } finally {
      forget();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const set of this.waiting.values()) for (const wake of set) wake();
    await this.following?.stop();
    this.reader.disconnect();
  }
}
