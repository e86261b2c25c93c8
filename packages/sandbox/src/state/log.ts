/**
 * The append-only update log: offset n lives at index n-1-prunedUpTo (no per-read copies, O(1) lookups),
 * update ids indexed in a map. Sized for millions of updates. Pruning drops records up to an offset for good,
 * so a pruned ledger holds only what came after (memory stays flat when a long run prunes as it goes).
 */
import type { UpdateRecord } from './types.ts';

type Listener = () => void;

export class UpdateLog {
  /** The updates after `pruned`, oldest first. */
  private records: UpdateRecord[] = [];
  private readonly byId = new Map<string, number>();
  private readonly listeners = new Set<Listener>();
  private pruned = 0;

  /** The offset of the last update, 0 on an empty ledger. */
  get end(): number {
    return this.pruned + this.records.length;
  }

  get prunedUpTo(): number {
    return this.pruned;
  }

  /** Appends an update (its `offset` is assigned here) and wakes streams waiting for new updates. */
  append<T extends UpdateRecord>(record: T): T {
    record.offset = this.end + 1;
    this.records.push(record);
    if (record.updateId !== '') this.byId.set(record.updateId, record.offset);
    for (const l of this.listeners) l();
    return record;
  }

  /** The update at `offset`, undefined when out of range or pruned. */
  at(offset: number): UpdateRecord | undefined {
    return offset > this.pruned ? this.records[offset - this.pruned - 1] : undefined;
  }

  offsetOf(updateId: string): number | undefined {
    return this.byId.get(updateId);
  }

  /** Forgets every update at or below `offset` (at most the end); returns the updates it dropped. */
  prune(offset: number): UpdateRecord[] {
    const dropped = this.records.slice(0, Math.max(0, Math.min(offset, this.end) - this.pruned));
    for (const r of dropped) this.byId.delete(r.updateId);
    this.records = this.records.slice(dropped.length);
    this.pruned += dropped.length;
    return dropped;
  }

  /** Subscribes to appends; returns the unsubscribe function. */
  onAppend(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
