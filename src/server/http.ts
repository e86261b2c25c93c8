// One HTTP listener per process (the API, or a worker's probes): started on PORT/HOST, closed gracefully.
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

type Fetch = (req: Request) => Response | Promise<Response>;

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
  const node = server as unknown as { closeIdleConnections?: () => void; closeAllConnections?: () => void };
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
