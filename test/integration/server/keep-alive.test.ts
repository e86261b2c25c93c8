// The race behind ECONNRESET on a loaded machine: a server that closes an idle kept-alive connection (Node's
// default: after 5 s) while its client reuses it. Quill's listener keeps idle connections longer than clients do,
// so a request on a connection idle for 6 s is answered.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_ALIVE_MS, type Listening, listen } from '../../../src/server/http.ts';

let server: Listening;
beforeAll(async () => {
  server = await listen(() => new Response('ok'), { port: 0, host: '127.0.0.1' });
});
afterAll(() => server.close());

describe('the HTTP listener', () => {
  it('answers a request on a kept-alive connection that sat idle past Node’s default timeout', async () => {
    expect(KEEP_ALIVE_MS).toBeGreaterThan(60_000);
    const socket = connect(server.port, '127.0.0.1');
    let received = '';
    socket.on('data', (d) => (received += d));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    const request = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n';
    const answers = () => received.split('HTTP/1.1 200').length - 1;
    socket.write(request);
    for (let i = 0; i < 100 && answers() < 1; i++) await new Promise((r) => setTimeout(r, 20));
    expect(answers()).toBe(1);
    await new Promise((r) => setTimeout(r, 6000));
    expect(socket.destroyed).toBe(false);
    socket.write(request);
    for (let i = 0; i < 100 && answers() < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(answers()).toBe(2);
    socket.end();
    await closed;
  }, 20_000);
});
