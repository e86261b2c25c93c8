// GET /wallet/v1/events: Server-Sent Events of the event log (read role). A party-scoped token sees only its
// party's events; asking for another party is 403. Resumes after `Last-Event-ID` (or `?after=`); an id older
// than what retention removed is 410 EVENTS_EXPIRED (nothing is silently skipped). Without an id the stream
// starts with the events written from now on. A comment line `: ping` is sent every EVENTS_HEARTBEAT_SECONDS
// without events; the stream ends at shutdown. Each stream holds a Redis connection, so a token may hold
// EVENTS_MAX_STREAMS_PER_TOKEN streams and the process EVENTS_MAX_STREAMS (F10); more are 429 TOO_MANY_STREAMS.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { echo } from '@quill/canton/errors';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { EVENT_TYPES, type EventFilter, type EventType, isEventId, isEventType } from '../../events/index.ts';
import { type AppDeps, type AppEnv, type EventsDeps, need } from '../context.ts';
import { ApiError, ErrorBody, errorResponses } from '../errors.ts';
import { eventStreamExample } from '../examples.ts';
import { security } from './shared.ts';

// Declared for the document only: the handler below reads the raw query and header itself (a stream answers
// with text/event-stream, which a typed `.openapi` handler cannot return).
const stream = createRoute({
  method: 'get',
  path: '/wallet/v1/events',
  operationId: 'streamEvents',
  tags: ['events'],
  summary: "Server-Sent Events: what happens to the wallet's parties, resumable by Last-Event-ID",
  security,
  request: {
    query: z.object({
      party: z.string().min(1).max(512).optional().openapi({
        description: "only this party's events (a party-scoped token always gets its own; another is 403)",
      }),
      types: z
        .string()
        .optional()
        .openapi({
          description: `comma-separated event types: ${EVENT_TYPES.join(', ')}`,
          example: 'submission.committed,submission.rejected',
        }),
      after: z.string().optional().openapi({
        description: 'resume after this event id (as Last-Event-ID)',
        example: '1795647251524-0',
      }),
    }),
    headers: z.object({
      'last-event-id': z.string().optional().openapi({
        description:
          'resume after this event id (<ms>-<seq>): every later event within retention is sent first',
      }),
    }),
  },
  responses: {
    200: {
      description:
        'An endless text/event-stream: per event `id:` (the event id), `event:` (its type) and `data:` (the event as ' +
        'JSON: {id, type, party, at, body}); a `: ping` comment every EVENTS_HEARTBEAT_SECONDS without events',
      content: { 'text/event-stream': { schema: z.string(), example: eventStreamExample } },
    },
    ...errorResponses(400, 401, 403, 410, 503),
    429: {
      ...errorResponses(429)[429],
      description:
        'TOO_MANY_STREAMS: this token (EVENTS_MAX_STREAMS_PER_TOKEN) or this process (EVENTS_MAX_STREAMS) has as ' +
        'many streams open as it may; retry after Retry-After seconds or close one',
      content: {
        'application/json': {
          schema: ErrorBody,
          example: {
            error: {
              code: 'TOO_MANY_STREAMS',
              message: 'this token may hold at most 20 event streams open at once; close one or retry later',
            },
          },
        },
      },
    },
  },
});

/** What a refused stream is told to wait: streams end at the client's will, so this is only a pace. */
const STREAM_RETRY_AFTER_SECONDS = 5;

/** Takes one of the caller's stream slots (its subject and party are the token), or answers 429. */
function takeSlot(c: Context<AppEnv>, ev: EventsDeps): () => void {
  const who = c.get('principal');
  const slot = ev.streams.take(JSON.stringify([who.subject, who.party ?? null]));
  if (typeof slot === 'function') return slot;
  const { maxPerToken, max } = ev.streams.caps;
  throw new ApiError(
    429,
    'TOO_MANY_STREAMS',
    slot === 'token'
      ? `this token may hold at most ${maxPerToken} event streams open at once; close one or retry later`
      : `this server holds ${max} event streams, as many as it may; retry later`,
    { retryAfterSeconds: STREAM_RETRY_AFTER_SECONDS },
  );
}

export function eventsDeps(deps: AppDeps): EventsDeps {
  if (!deps.events) throw new ApiError(503, 'EVENTS_UNAVAILABLE', 'events are not available in this process');
  return deps.events;
}

/** `types=a,b`: every name must be a known event type. */
export function parseTypes(raw: string | undefined): EventType[] {
  if (raw === undefined || raw.trim() === '') return [];
  const out: EventType[] = [];
  for (const t of raw.split(',').map((s) => s.trim())) {
    if (!isEventType(t))
      throw new ApiError(
        400,
        'INVALID_REQUEST',
        `types: unknown event type ${echo(t)} (one of ${EVENT_TYPES.join(', ')})`,
      );
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

/** The party filter the caller may use: its own party when scoped (another party: 403). */
export function scopedParty(c: Context<AppEnv>, asked: string | undefined): string | undefined {
  const who = c.get('principal');
  if (asked !== undefined && (asked.length === 0 || asked.length > 512))
    throw new ApiError(400, 'INVALID_REQUEST', 'party: must be 1-512 characters');
  if (who.party === undefined) return asked;
  if (asked !== undefined && asked !== who.party)
    throw new ApiError(403, 'FORBIDDEN', 'this token may only see its own party');
  return who.party;
}

export function eventRoutes(deps: AppDeps) {
  const app = new OpenAPIHono<AppEnv>();
  app.openAPIRegistry.registerPath(stream);
  return app.get('/wallet/v1/events', async (c) => {
    need(c, 'read');
    const ev = eventsDeps(deps);
    const types = parseTypes(c.req.query('types'));
    const party = scopedParty(c, c.req.query('party'));
    const given = c.req.header('last-event-id') ?? c.req.query('after');
    if (given !== undefined && !isEventId(given))
      throw new ApiError(400, 'INVALID_EVENT_ID', 'Last-Event-ID: not an event id (<ms>-<seq>)');
    if (given !== undefined && (await ev.log.expired(given)))
      throw new ApiError(
        410,
        'EVENTS_EXPIRED',
        'events after this id were removed by retention: resume without Last-Event-ID and reconcile',
      );
    const start = given ?? (await ev.log.end());
    const filter: EventFilter = {
      ...(types.length > 0 ? { types } : {}),
      ...(party !== undefined ? { party } : {}),
    };
    const release = takeSlot(c, ev);
    let conn: ReturnType<EventsDeps['connect']>;
    try {
      conn = ev.connect();
    } catch (err) {
      release();
      throw err;
    }
    c.header('Cache-Control', 'no-cache');
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(
      c,
      async (stream) => {
        let after = start;
        let closed = false;
        const stop = () => {
          closed = true;
          conn.disconnect();
        };
        stream.onAbort(stop);
        if (ev.closing.aborted) stop();
        ev.closing.addEventListener('abort', stop, { once: true });
        try {
          await stream.write(': connected\n\n');
          while (!closed) {
            let res: Awaited<ReturnType<typeof ev.log.read>>;
            try {
              res = await ev.log.read(after, filter, 200, { blockMs: ev.heartbeatMs, via: conn });
            } catch {
              if (closed) break;
              await stream.write(': redis unavailable, retrying\n\n');
              await stream.sleep(Math.min(1000, ev.heartbeatMs));
              continue;
            }
            after = res.next;
            for (const e of res.events) {
              await stream.writeSSE({ id: e.id, event: e.type, data: JSON.stringify(e) });
            }
            if (res.events.length === 0) await stream.write(': ping\n\n');
          }
        } finally {
          ev.closing.removeEventListener('abort', stop);
          conn.disconnect();
          release();
        }
      },
      async () => {
        conn.disconnect();
        release();
      },
    );
  });
}
