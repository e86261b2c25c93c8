// GET /console/events: the wallet's event stream (GET /wallet/v1/events, party-scoped as the operator is) for the
// console's pages, one per tab (console.js). Only submission events: they are what the pages show. The stream
// ends after LIVE_MS so that the browser's reconnect (with Last-Event-ID) passes the session check again: a
// session that ended stops receiving within that time.
import type { Ctx } from './http.tsx';

const LIVE_MS = 5 * 60_000;
const TYPES = [
  'submission.accepted',
  'submission.awaiting_approval',
  'submission.approval',
  'submission.awaiting_signatures',
  'submission.signature',
  'submission.committed',
  'submission.rejected',
  'submission.expired',
].join(',');

export async function liveEvents(c: Ctx): Promise<Response> {
  const last = c.req.header('last-event-id');
  const res = await c.get('api').wallet.v1.events.$get({
    query: { types: TYPES },
    header: last ? { 'last-event-id': last } : {},
  });
  // Refused (too many streams, an expired id, no events in this process): the API's JSON error, and the
  // browser's EventSource stops; the page keeps working without live updates.
  if (res.status !== 200 || !res.body)
    return new Response(await res.text(), { status: res.status, headers: res.headers });
  const reader = res.body.getReader();
  const timer = setTimeout(() => void reader.cancel().catch(() => {}), LIVE_MS);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        clearTimeout(timer);
        controller.close();
      } else controller.enqueue(value);
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    },
  });
}
