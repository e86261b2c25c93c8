// The process's Prometheus registry: one per process (tests run several wallets side by side), made by the
// composition root. Each part registers its own metrics in it (the pipeline's counters, the backlog gauges, the
// inspection pool's), and /metrics serves it. A leaf: it imports nothing of ours.
import { Registry } from 'prom-client';

export type { Registry };

export function metricsRegistry(): Registry {
  return new Registry();
}
