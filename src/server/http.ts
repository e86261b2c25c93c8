// One HTTP listener per process (the API, or a worker's probes): started on PORT/HOST, closed gracefully.
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

type Fetch = (req: Request) => Response | Promise<Response>;

/**
 * How long an idle kept-alive connection stays open. Longer than any client's or proxy's own idle timeout (undici
 * drops idle sockets after 4 s, load balancers after about 60 s), so the client always closes first: a server that
 * closed first (Node's default, 5 s) races a client reusing the socket, which then sees ECONNRESET — seen on a loaded
 * machine, where a client reads a response late and sends its next request just as the server's timer fires.
 */
export const KEEP_ALIVE_MS = 65_000;

export interface Listening {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Idle connections are closed at once on close; busy ones get two seconds to answer. */
export async function listen(fetch: Fetch, at: { port: number; host: string }): Promise<Listening> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch, port: at.port, hostname: at.host }, () => resolve(s));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const node = server as unknown as {
    keepAliveTimeout: number;
    headersTimeout: number;
    closeIdleConnections?: () => void;
    closeAllConnections?: () => void;
  };
  node.keepAliveTimeout = KEEP_ALIVE_MS;
  node.headersTimeout = KEEP_ALIVE_MS + 1000;
  return {
    port,
    url: `http://${at.host === '0.0.0.0' ? '127.0.0.1' : at.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        node.closeIdleConnections?.();
        setTimeout(() => node.closeAllConnections?.(), 2000);
      }),
  };
}
