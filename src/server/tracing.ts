// OpenTelemetry's SDK, started with the process only when tracing is asked for: off by default. Configured by the
// standard OTEL_* variables, which the SDK and the OTLP exporter read themselves (not Quill's configuration):
//   OTEL_SDK_DISABLED=true                 off, whatever else is set
//   OTEL_TRACES_EXPORTER=otlp|none         otlp turns tracing on (to http://localhost:4318 unless an endpoint says)
//   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
//   OTEL_EXPORTER_OTLP_ENDPOINT            either one set also turns it on (OTLP over HTTP, JSON bodies)
//   OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _TRACES_*, OTEL_BSP_*, OTEL_TRACES_SAMPLER(_ARG), OTEL_RESOURCE_ATTRIBUTES
//   OTEL_SERVICE_NAME                      default `quill`
// Spans come from @opentelemetry/api calls in src/submissions and src/api, no-ops until this registers a provider.
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Log } from '../log.ts';

export interface Tracing {
  enabled: boolean;
  /** Exports what is buffered and stops; a no-op when tracing is off. */
  shutdown(): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Whether the OTEL_* variables ask for traces (exported over OTLP/HTTP), and the reason when they do not. */
export function tracingWanted(env: Env): { on: boolean; why?: string } {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { on: false };
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '');
  if (exporters.includes('none')) return { on: false };
  const unsupported = exporters.filter((e) => e !== 'otlp');
  if (unsupported.length > 0)
    return { on: false, why: `OTEL_TRACES_EXPORTER=${unsupported.join(',')} is not supported (only otlp)` };
  if (exporters.includes('otlp')) return { on: true };
  return { on: !!(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT) };
}

/**
 * Registers a tracer provider (W3C trace context propagation, async-hooks context) exporting spans over OTLP/HTTP
 * when the environment asks for it (`tracingWanted`); otherwise registers nothing. The exporter reads its endpoint,
 * headers and timeout from process.env (the SDK's own reading).
 */
export function startTracing(env: Env, log?: Log): Tracing {
  const wanted = tracingWanted(env);
  if (wanted.why) log?.('warn', `tracing off: ${wanted.why}`);
  if (!wanted.on) return { enabled: false, shutdown: async () => {} };
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'quill' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  // The endpoint is not echoed: its URL may carry credentials.
  log?.('info', 'tracing on: spans exported over OTLP/HTTP (OTEL_EXPORTER_OTLP_*)');
  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    shutdown: () => {
      stopped ??= provider.shutdown().catch((err: unknown) => {
        log?.('warn', `tracing: the last spans were not exported: ${(err as Error).message}`);
      });
      return stopped;
    },
  };
}
