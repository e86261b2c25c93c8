// A stand-in for Quill's own HTTP API, for the CLI's argument plumbing only: it records each request and answers
// what the test says (the routes themselves are tested end to end against the real API elsewhere).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FakeAnswer {
  status: number;
  body: unknown;
}

export interface FakeWallet {
  url: string;
  seen: SeenRequest[];
  /** What the next requests are answered (the last one set stays). */
  answer: (a: FakeAnswer | ((req: SeenRequest) => FakeAnswer)) => void;
  close: () => Promise<void>;
}

export async function startFakeWallet(): Promise<FakeWallet> {
  const seen: SeenRequest[] = [];
  let respond: (req: SeenRequest) => FakeAnswer = () => ({ status: 200, body: {} });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: text === '' ? undefined : JSON.parse(text),
      };
      seen.push(request);
      const a = respond(request);
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    answer: (a) => {
      respond = typeof a === 'function' ? a : () => a;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
