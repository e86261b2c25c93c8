// The ledger watcher's lag for /metrics: offsets between the ledger end and the checkpoint the party history has
// reached. A watcher that falls behind (a slow participant, a huge backlog after a restore) leaves history reads,
// holdings and reconciliation by index stale while everything else looks healthy.
import { Gauge, type Registry } from 'prom-client';
import type { LedgerWatcher } from './watcher.ts';

export function watcherMetrics(registry: Registry, watcher: LedgerWatcher): void {
  new Gauge({
    name: 'quill_ledger_watcher_lag_offsets',
    help: 'Ledger offsets between the ledger end and the watcher’s checkpoint at its last step (0 on workers not holding the watcher lease)',
    registers: [registry],
    collect() {
      const p = watcher.position;
      this.set(p ? Math.max(0, p.ledgerEnd - p.checkpoint) : 0);
    },
  });
  new Gauge({
    name: 'quill_ledger_watcher_checkpoint_offset',
    help: 'The ledger offset up to which the watcher has indexed the parties’ history (its last step in this process)',
    registers: [registry],
    collect() {
      const p = watcher.position;
      if (p) this.set(p.checkpoint);
    },
  });
}
