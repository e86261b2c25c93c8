/**
 * The append-only update log: offset n lives at index n-1 (no per-read copies, O(1) lookups), update ids
 * indexed in a map. Sized for millions of updates. Pruning drops records up to an offset for good.
 */
import type { UpdateRecord } from './types.ts';

type Listener = () => void;

export class UpdateLog {
  private readonly records: (UpdateRecord | undefined)[] = [];
  private readonly byId = new Map<string, number>();
  private readonly listeners = new Set<Listener>();
  private pruned = 0;

  /** The offset of the last update, 0 on an empty ledger. */
  get end(): number {
    return this.records.length;
  }

  get prunedUpTo(): number {
    return this.pruned;
  }

  /** Appends an update (its `offset` is assigned here) and wakes streams waiting for new updates. */
  append<T extends UpdateRecord>(record: T): T {
    record.offset = this.records.length + 1;
    this.records.push(record);
    if (record.updateId !== '') this.byId.set(record.updateId, record.offset);
    for (const l of this.listeners) l();
    return record;
  }

  /** The update at `offset`, undefined when out of range or pruned. */
  at(offset: number): UpdateRecord | undefined {
    return offset >= 1 ? this.records[offset - 1] : undefined;
  }

  offsetOf(updateId: string): number | undefined {
    return this.byId.get(updateId);
  }

  /** Forgets every update at or below `offset`. */
  prune(offset: number): void {
    for (let o = this.pruned + 1; o <= offset; o++) {
      const r = this.records[o - 1];
      if (r) this.byId.delete(r.updateId);
      this.records[o - 1] = undefined;
    }
    this.pruned = Math.max(this.pruned, offset);
  }

  /** Subscribes to appends; returns the unsubscribe function. */
  onAppend(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
