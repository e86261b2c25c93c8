/** Every error shape of the participant (and of the network) maps to the right LedgerError. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerClient, LedgerError } from '../../src/ledger/index.ts';
import { closedPort, json, startServer, type TestServer, text } from './http-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

function cantonError(code: string, errorCategory: number, extra: Record<string, unknown> = {}) {
  return {
    code,
    cause: `cause of ${code}`,
    correlationId: 'sub-1',
    traceId: null,
    context: { category: String(errorCategory), tid: 'abc', ...(extra.context as object) },
    resources: [],
    errorCategory,
    grpcCodeValue: null,
    retryInfo: [1, 2, 3, 12].includes(errorCategory) ? '1 second' : null,
    definiteAnswer: extra.definiteAnswer ?? null,
  };
}

async function failure(promise: Promise<unknown>): Promise<LedgerError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(LedgerError);
    return err as LedgerError;
  }
  throw new Error('expected a LedgerError');
}

const client = () => new LedgerClient({ baseUrl: server.url, token: 'static-token', timeoutMs: 2000 });

describe('JsCantonError bodies', () => {
  const cases: Array<{
    name: string;
    status: number;
    code: string;
    category: number;
    retryable: boolean;
    outcomeUnknown: boolean;
    definiteAnswer?: boolean;
  }> = [
    {
      name: 'duplicate',
      status: 409,
      code: 'DUPLICATE_COMMAND',
      category: 10,
      retryable: false,
      outcomeUnknown: false,
    },
    {
      name: 'in flight',
      status: 409,
      code: 'SUBMISSION_ALREADY_IN_FLIGHT',
      category: 2,
      retryable: true,
      outcomeUnknown: false,
    },
    {
      name: 'deadline',
      status: 504,
      code: 'REQUEST_TIME_OUT',
      category: 3,
      retryable: true,
      outcomeUnknown: true,
    },
    {
      name: 'unavailable',
      status: 503,
      code: 'SERVICE_NOT_RUNNING',
      category: 1,
      retryable: true,
      outcomeUnknown: false,
    },
    {
      name: 'internal',
      status: 500,
      code: 'LEDGER_API_INTERNAL_ERROR',
      category: 4,
      retryable: false,
      outcomeUnknown: true,
    },
    {
      name: 'unauthenticated',
      status: 401,
      code: 'UNAUTHENTICATED',
      category: 6,
      retryable: false,
      outcomeUnknown: false,
    },
    {
      name: 'forbidden',
      status: 403,
      code: 'PERMISSION_DENIED',
      category: 7,
      retryable: false,
      outcomeUnknown: false,
    },
    {
      name: 'bad signature',
      status: 400,
      code: 'FAILED_TO_EXECUTE_TRANSACTION',
      category: 8,
      retryable: false,
      outcomeUnknown: false,
    },
    {
      name: 'pruned',
      status: 400,
      code: 'PARTICIPANT_PRUNED_DATA_ACCESSED',
      category: 9,
      retryable: false,
      outcomeUnknown: false,
    },
    {
      name: 'not found',
      status: 404,
      code: 'UPDATE_NOT_FOUND',
      category: 11,
      retryable: false,
      outcomeUnknown: false,
    },
    {
      name: 'after ledger end',
      status: 400,
      code: 'OFFSET_AFTER_LEDGER_END',
      category: 12,
      retryable: true,
      outcomeUnknown: false,
    },
    {
      name: 'legacy grpc',
      status: 500,
      code: 'INTERNAL',
      category: -1,
      retryable: false,
      outcomeUnknown: true,
    },
    {
      name: 'list overflow',
      status: 413,
      code: 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
      category: 2,
      retryable: false,
      outcomeUnknown: false,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.status} ${c.code}`, async () => {
      server.handle((_req, res) =>
        json(
          res,
          c.status,
          cantonError(c.code, c.category, { context: { completion_offset: '42', definite_answer: 'true' } }),
        ),
      );
      const err = await failure(client().ledgerEnd());
      expect(err.status).toBe(c.status);
      expect(err.code).toBe(c.code);
      expect(err.errorCategory).toBe(c.category);
      expect(err.retryable).toBe(c.retryable);
      expect(err.outcomeUnknown).toBe(c.outcomeUnknown);
      expect(err.definiteAnswer).toBe(true);
      expect(err.context.completion_offset).toBe('42');
      expect(err.correlationId).toBe('sub-1');
      expect(err.body?.code).toBe(c.code);
      expect(err.message).toContain(`cause of ${c.code}`);
    });
  }

  it('definiteAnswer comes from the body field before the context', async () => {
    server.handle((_req, res) =>
      json(res, 504, cantonError('REQUEST_TIME_OUT', 3, { definiteAnswer: false })),
    );
    const err = await failure(client().ledgerEnd());
    expect(err.definiteAnswer).toBe(false);
  });
});

describe('non-JSON and foreign bodies', () => {
  it('400 text/plain (body decode failure) is final and definitely not applied', async () => {
    server.handle((_req, res) => text(res, 400, 'Invalid value for: body (Missing required field at ...)'));
    const err = await failure(client().ledgerEnd());
    expect(err).toMatchObject({ status: 400, code: 'HTTP_400', errorCategory: -1, retryable: false });
    expect(err.outcomeUnknown).toBe(false);
    expect(err.message).toContain('Invalid value for: body');
  });

  it('503 text/plain (JSON server request timeout) is retryable with an unknown outcome', async () => {
    server.handle((_req, res) =>
      text(res, 503, 'The server was not able to produce a timely response to your request.'),
    );
    const err = await failure(client().ledgerEnd());
    expect(err).toMatchObject({ status: 503, code: 'HTTP_503', retryable: true, outcomeUnknown: true });
  });

  it('413 text/plain is not retryable', async () => {
    server.handle((_req, res) => text(res, 413, 'Request Entity Too Large'));
    const err = await failure(client().ledgerEnd());
    expect(err).toMatchObject({ status: 413, code: 'HTTP_413', retryable: false, outcomeUnknown: false });
  });

  it('a JSON error body that is not a JsCantonError keeps the status and a bounded snippet', async () => {
    server.handle((_req, res) => json(res, 502, { message: 'bad gateway'.repeat(100) }));
    const err = await failure(client().ledgerEnd());
    expect(err).toMatchObject({ status: 502, code: 'HTTP_502', retryable: true, outcomeUnknown: true });
    expect(err.message.length).toBeLessThan(400);
  });
});

describe('unreadable 2xx responses', () => {
  it('a body that is not JSON', async () => {
    server.handle((_req, res) => text(res, 200, '<html>proxy</html>'));
    const err = await failure(client().ledgerEnd());
    expect(err).toMatchObject({ status: 200, code: 'INVALID_RESPONSE', outcomeUnknown: true });
    expect(err.message).toContain('not JSON');
  });

  it('a body of the wrong shape names the failing path', async () => {
    server.handle((_req, res) => json(res, 200, { transaction: { updateId: 7 } }));
    const err = await failure(
      client().transactionById({ updateId: `1220${'07'.repeat(32)}`, requestingParties: ['alice::1220ab'] }),
    );
    expect(err.code).toBe('INVALID_RESPONSE');
    expect(err.message).toContain('transaction.updateId');
  });

  it('a body beyond maxResponseBytes is refused, streamed or declared', async () => {
    const big = new LedgerClient({ baseUrl: server.url, maxResponseBytes: 1000 });
    server.handle((_req, res) => json(res, 200, { offset: 1, pad: 'x'.repeat(5000) }));
    let err = await failure(big.ledgerEnd());
    expect(err).toMatchObject({ status: 200, code: 'RESPONSE_TOO_LARGE', outcomeUnknown: true });
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 20; i++) res.write(' '.repeat(100));
      res.end('{"offset":1}');
    });
    err = await failure(big.ledgerEnd());
    expect(err.code).toBe('RESPONSE_TOO_LARGE');
    server.handle((_req, res) => json(res, 200, { offset: 1 }));
    expect(await big.ledgerEnd()).toEqual({ offset: 1 });
  });

  it('an int64 beyond 2^53 is refused instead of silently rounded', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"offset": 9007199254740993}');
    });
    const err = await failure(client().ledgerEnd());
    expect(err.code).toBe('INVALID_RESPONSE');
    expect(err.message).toContain('offset');
  });
});

describe('transport failures', () => {
  it('connection refused: not delivered, retryable, outcome known', async () => {
    const c = new LedgerClient({ baseUrl: await closedPort(), timeoutMs: 2000 });
    const err = await failure(c.ledgerEnd());
    expect(err).toMatchObject({ code: 'TRANSPORT_FAILURE', retryable: true, outcomeUnknown: false });
    expect(err.status).toBeUndefined();
    expect(err.context.transport).toBe('ECONNREFUSED');
  });

  it('connection reset after the request was sent: outcome unknown', async () => {
    server.handle((_req, res) => {
      res.socket?.destroy();
    });
    const err = await failure(client().ledgerEnd());
    expect(err).toMatchObject({ code: 'TRANSPORT_FAILURE', retryable: true, outcomeUnknown: true });
    expect(err.status).toBeUndefined();
  });

  it('reset in the middle of the body: outcome unknown', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"offset":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const err = await failure(client().ledgerEnd());
    expect(err).toMatchObject({ code: 'TRANSPORT_FAILURE', outcomeUnknown: true });
  });

  it('no answer within the per-call timeout', async () => {
    server.handle(() => {
      /* never answers */
    });
    const started = Date.now();
    const err = await failure(client().ledgerEnd({ timeoutMs: 150 }));
    expect(Date.now() - started).toBeLessThan(1500);
    expect(err).toMatchObject({ code: 'TIMEOUT', retryable: true, outcomeUnknown: true });
    expect(err.message).toContain('150 ms');
  });

  it("the caller's AbortSignal cancels the call", async () => {
    server.handle(() => {
      /* never answers */
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await failure(client().ledgerEnd({ signal: controller.signal }));
    expect(err).toMatchObject({ code: 'CANCELLED', outcomeUnknown: true, retryable: false });
  });

  it('an already-aborted signal sends nothing', async () => {
    const before = server.requests.length;
    const err = await failure(client().ledgerEnd({ signal: AbortSignal.abort() }));
    expect(err).toMatchObject({ code: 'CANCELLED', outcomeUnknown: false });
    expect(server.requests.length).toBe(before);
  });

  it('a bad base URL is refused at construction', () => {
    expect(() => new LedgerClient({ baseUrl: 'not a url' })).toThrow(LedgerError);
    expect(() => new LedgerClient({ baseUrl: 'ftp://example.com' })).toThrow(/http/);
  });
});
