// The process's Prometheus registry: one per process (tests run several wallets side by side), made by the
// composition root. Each part registers its own metrics in it (the pipeline's counters, the backlog gauges, the
// inspection pool's), and /metrics serves it with the process's own. A leaf: it imports nothing of ours.
import { collectDefaultMetrics, Registry } from 'prom-client';

export type { Registry };

export function metricsRegistry(): Registry {
  return new Registry();
}

let processRegistry: Registry | undefined;

/**
 * The process itself (prom-client's defaults, unprefixed as Node dashboards expect them):
 * `process_resident_memory_bytes`, `process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`,
 * `nodejs_eventloop_lag_p99_seconds`, `nodejs_gc_duration_seconds` and the rest. A service that runs for weeks is
 * watched for memory that grows and an event loop held up. Collected once per process, however many wallets it
 * runs: each collector keeps a GC observer and an event loop timer for good.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** What `GET /metrics` serves: the wallet's metrics, then the process's. */
export async function exposition(registry: Registry): Promise<string> {
  return `${await registry.metrics()}\n${await processMetrics().metrics()}`;
}
