// Setting a header on a response already made. Hono's `c.header()` after `next()` first turns @hono/node-server's
// lightweight response into a full web Response and copies its body through a stream (once per call): that was a
// tenth of the API's CPU per request. Setting it on the response's own headers keeps the fast path.
import type { Context } from 'hono';

export function setResponseHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value); // a response whose headers are immutable (one fetched elsewhere): the slow way
  }
}
