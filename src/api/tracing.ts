// The caller's W3C trace context (`traceparent`, `tracestate`) made the active context of a wallet request: the
// accept span (and the job it enqueues, and the ledger's execute request) continue the caller's trace. With
// tracing off (no SDK registered) the propagator is a no-op and the headers are ignored.
import { context } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { contextFrom } from '../submissions/index.ts';
import type { AppEnv } from './context.ts';

export function traceContext(): MiddlewareHandler<AppEnv> {
  return (c, next) => {
    const carrier = { traceparent: c.req.header('traceparent'), tracestate: c.req.header('tracestate') };
    return context.with(contextFrom(carrier, context.active()), next);
  };
}
