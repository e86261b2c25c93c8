// A registry is an input, not trusted: each way one can answer badly over real HTTP is a clear refusal (502
// REGISTRY_UNAVAILABLE to retry, 422 REGISTRY_REFUSED for its own "no"), never a crash, a hang or unbounded memory.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryClient } from '../../../src/intents/index.ts';
import { SubmissionRefused } from '../../../src/submissions/index.ts';

let server: Server;
let base: string;
/** What the registry does next, by the test's choice. */
let answer: (res: import('node:http').ServerResponse) => void = () => {};

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const client = () => new RegistryClient({ urls: { 'reg::1220': base }, timeoutMs: 500 });
const json = (status: number, body: unknown) => (res: import('node:http').ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

async function refusal(
  run: () => Promise<unknown>,
): Promise<{ status: number; code: string; message: string }> {
  try {
    await run();
  } catch (err) {
    expect(err).toBeInstanceOf(SubmissionRefused);
    const e = err as SubmissionRefused;
    return { status: e.status, code: e.code, message: e.message };
  }
  throw new Error('expected a refusal');
}

describe('a registry that answers badly', () => {
  const good = {
    factoryId: '00ab',
    transferKind: 'direct',
    choiceContext: { choiceContextData: { values: {} }, disclosedContracts: [] },
  };

  it('passes a good answer on', async () => {
    answer = json(200, good);
    expect(await client().transferFactory('reg::1220', {})).toMatchObject({ factoryId: '00ab' });
  });

  it.each([
    ['a 500', json(500, { error: 'boom' })],
    ['not JSON', json(200, '<html>')],
    ['the wrong shape', json(200, { factoryId: 7 })],
    [
      'a body too large',
      (res: import('node:http').ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(1024 * 1024, 32);
        for (let i = 0; i < 9; i++) res.write(chunk);
        res.end('{}');
      },
    ],
    ['no answer in time', () => {}],
  ])('%s is 502 REGISTRY_UNAVAILABLE', async (_what, a) => {
    answer = a;
    const r = await refusal(() => client().transferFactory('reg::1220', {}));
    expect(r).toMatchObject({ status: 502, code: 'REGISTRY_UNAVAILABLE' });
  });

  it('passes its own refusal on as 422 REGISTRY_REFUSED, and an unknown admin is 422 UNKNOWN_REGISTRY', async () => {
    answer = json(400, { error: 'Instrument X is not administered here' });
    expect(await refusal(() => client().instructionContext('reg::1220', '00cd', 'accept'))).toEqual({
      status: 422,
      code: 'REGISTRY_REFUSED',
      message: expect.stringContaining('Instrument X is not administered here'),
    });
    expect(await refusal(() => client().transferFactory('other::1220', {}))).toMatchObject({
      status: 422,
      code: 'UNKNOWN_REGISTRY',
    });
  });
});
