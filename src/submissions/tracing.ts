// Tracing through @opentelemetry/api only: spans and W3C trace context. Without an SDK registered (the default,
// see src/server/tracing.ts) every call here is a no-op: no span is recorded and no trace context is read or made.
import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/** A W3C trace context as the ledger's `traceContext` and the HTTP headers carry it. Metadata: never hashed or signed. */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

const TRACER = 'quill';

/** The trace context of `ctx` (the active one by default), or undefined when there is none to pass on. */
export function currentTraceContext(ctx: Context = context.active()): TraceContext | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  const { traceparent, tracestate } = carrier;
  if (!traceparent) return undefined;
  return { traceparent, ...(tracestate ? { tracestate } : {}) };
}

/** The context a carrier (request headers, a job's data) continues: `base` when it holds no valid trace context. */
export function contextFrom(
  carrier: { traceparent?: string | undefined; tracestate?: string | undefined } | undefined,
  base: Context = ROOT_CONTEXT,
): Context {
  if (!carrier?.traceparent) return base;
  const headers: Record<string, string> = { traceparent: carrier.traceparent };
  if (carrier.tracestate) headers.tracestate = carrier.tracestate;
  return propagation.extract(base, headers);
}

/**
 * Runs `fn` in a new span, child of the active one, and ends it: an error thrown marks the span failed (its code,
 * when it has one, as the status message) and is thrown again.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return trace.getTracer(TRACER).startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: typeof code === 'string' ? code : err instanceof Error ? err.name : 'error',
      });
      throw err;
    } finally {
      span.end();
    }
  });
}

export { SpanKind };
