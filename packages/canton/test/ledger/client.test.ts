/** LedgerClient behaviour against a real HTTP server: headers, tokens, client-side checks, bodies sent. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jwtExpiry, LedgerClient, LedgerError, TokenSource } from '../../src/ledger/index.ts';
import { json, startServer, type TestServer } from './http-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.handle((_req, res) => json(res, 200, { offset: 17 }));
});

function jwt(payload: Record<string, unknown>): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(payload)}.c2ln`;
}

async function failure(promise: Promise<unknown>): Promise<LedgerError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LedgerError);
  return err as LedgerError;
}

describe('headers', () => {
  it('sends the static bearer token, accept and the traceparent', async () => {
    const client = new LedgerClient({ baseUrl: `${server.url}/`, token: 'tok-1' });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(await client.ledgerEnd({ traceparent })).toEqual({ offset: 17 });
    const req = server.requests[0]!;
    expect(req.path).toBe('/v2/state/ledger-end');
    expect(req.headers.authorization).toBe('Bearer tok-1');
    expect(req.headers.traceparent).toBe(traceparent);
    expect(req.headers.accept).toBe('application/json');
  });

  it('sends a tracestate beside a traceparent only, and leaves out one that is not a sane header value', async () => {
    const client = new LedgerClient({ baseUrl: server.url });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await client.ledgerEnd({ traceparent, tracestate: 'vendor=abc,other=1' });
    await client.ledgerEnd({ tracestate: 'vendor=abc' });
    await client.ledgerEnd({ traceparent, tracestate: 'x'.repeat(513) });
    expect(server.requests.map((r) => r.headers.tracestate)).toEqual([
      'vendor=abc,other=1',
      undefined,
      undefined,
    ]);
  });

  it('sends no authorization header without a token and refuses a malformed traceparent', async () => {
    const client = new LedgerClient({ baseUrl: server.url });
    await client.ledgerEnd();
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    const err = await failure(client.ledgerEnd({ traceparent: 'not-a-trace' }));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(server.requests).toHaveLength(1);
  });

  it('keeps a path prefix of the base URL', async () => {
    const client = new LedgerClient({ baseUrl: `${server.url}/participant1` });
    await client.ledgerEnd();
    expect(server.requests[0]!.path).toBe('/participant1/v2/state/ledger-end');
  });
});

describe('token provider', () => {
  it('caches a JWT until shortly before exp, then asks again', async () => {
    const t0 = 1_800_000_000_000;
    let now = t0;
    let calls = 0;
    const source = new TokenSource(
      async () => {
        calls++;
        return jwt({ sub: 'quill', exp: Math.floor(now / 1000) + 3600 });
      },
      { refreshBeforeMs: 30_000, now: () => now },
    );
    await Promise.all([source.get(), source.get(), source.get()]);
    expect(calls).toBe(1);
    now = t0 + 3000_000;
    await source.get();
    expect(calls).toBe(1);
    now = t0 + 3600_000 - 29_000;
    await source.get();
    expect(calls).toBe(2);
    // A token without exp is kept for the fallback time only.
    const plain = new TokenSource(async () => `opaque-${++calls}`, { fallbackTtlMs: 1000, now: () => now });
    const a = await plain.get();
    expect(await plain.get()).toBe(a);
    now += 1001;
    expect(await plain.get()).not.toBe(a);
    expect(jwtExpiry('not.a.jwt')).toBeUndefined();
    expect(jwtExpiry(jwt({ exp: 12 }))).toBe(12);
  });

  it('LedgerClient asks the provider again once the token is about to expire', async () => {
    let calls = 0;
    const provider = async () => {
      calls++;
      return jwt({ exp: Math.floor(Date.now() / 1000) + (calls === 1 ? 1 : 3600) });
    };
    const client = new LedgerClient({ baseUrl: server.url, token: provider, tokenRefreshBeforeMs: 30_000 });
    await client.ledgerEnd();
    await new Promise((r) => setTimeout(r, 800));
    await client.ledgerEnd();
    await client.ledgerEnd();
    expect(calls).toBe(2);
  });

  it('refreshes and retries once after a 401', async () => {
    let issued = 0;
    const provider = async () => `token-${++issued}`;
    server.handle((req, res) => {
      if (req.headers.authorization === 'Bearer token-1') {
        json(res, 401, {
          code: 'UNAUTHENTICATED',
          cause: 'expired',
          context: { ledger_api_error: 'invalid token' },
          errorCategory: 6,
        });
      } else json(res, 200, { offset: 3 });
    });
    const client = new LedgerClient({ baseUrl: server.url, token: provider });
    expect(await client.ledgerEnd()).toEqual({ offset: 3 });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('after a 401 (redacted, as the participant answers) a caching provider is asked past its cache, once (issue 26)', async () => {
    const asked: (boolean | undefined)[] = [];
    const provider = async (o?: { refresh?: boolean }) => {
      asked.push(o?.refresh);
      return o?.refresh ? 'fresh' : 'cached';
    };
    const redacted = {
      code: 'NA',
      cause: 'A security-sensitive error has been received',
      context: {},
      errorCategory: -1,
    };
    server.handle((req, res) =>
      req.headers.authorization === 'Bearer fresh' ? json(res, 200, { offset: 3 }) : json(res, 401, redacted),
    );
    const client = new LedgerClient({ baseUrl: server.url, token: provider });
    expect(await client.ledgerEnd()).toEqual({ offset: 3 });
    expect(asked).toEqual([undefined, true]);
    // Refused again after the refresh: the 401 is the answer, no third request.
    server.handle((_req, res) => json(res, 401, redacted));
    const before = server.requests.length;
    const again = new LedgerClient({ baseUrl: server.url, token: provider });
    await expect(again.ledgerEnd()).rejects.toMatchObject({ status: 401, code: 'NA' });
    expect(server.requests.length - before).toBe(2);
  });

  it('a failing provider is a retryable error that sends nothing and leaks no token', async () => {
    const client = new LedgerClient({
      baseUrl: server.url,
      token: async () => {
        throw new Error('vault unreachable');
      },
    });
    const err = await failure(client.ledgerEnd());
    expect(err).toMatchObject({ code: 'AUTH_TOKEN_UNAVAILABLE', retryable: true, outcomeUnknown: false });
    expect(err.message).toContain('vault unreachable');
    expect(server.requests).toHaveLength(0);
  });

  it('the token never appears in an error', async () => {
    server.handle((_req, res) =>
      json(res, 403, { code: 'PERMISSION_DENIED', cause: 'no', context: {}, errorCategory: 7 }),
    );
    const client = new LedgerClient({ baseUrl: server.url, token: 'secret-token-value' });
    const err = await failure(client.ledgerEnd());
    expect(JSON.stringify(err.toJSON()) + err.message + String(err.stack)).not.toContain(
      'secret-token-value',
    );
  });
});

describe('client-side checks (INVALID_ARGUMENT, nothing sent)', () => {
  const client = () => new LedgerClient({ baseUrl: server.url });
  const format = {
    includeTransactions: {
      eventFormat: { filtersByParty: { 'alice::1220aa': {} }, verbose: false },
      transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' as const,
    },
  };
  const cases: Array<[string, () => Promise<unknown>, RegExp]> = [
    [
      'descendingOrder without endInclusive',
      () => client().updatesFlats({ beginExclusive: 0, descendingOrder: true, updateFormat: format }),
      /descending order requires endInclusive/,
    ],
    [
      'legacy filter with updateFormat',
      () => client().updatesFlats({ beginExclusive: 0, endInclusive: 5, filter: {}, updateFormat: format }),
      /backwards compatible arguments/,
    ],
    [
      'legacy verbose with updateFormat',
      () => client().updates({ beginExclusive: 0, endInclusive: 5, verbose: true, updateFormat: format }),
      /backwards compatible arguments/,
    ],
    [
      'legacy verbose=true with updateFormat (flats)',
      () =>
        client().updatesFlats({ beginExclusive: 0, endInclusive: 5, verbose: true, updateFormat: format }),
      /backwards compatible arguments/,
    ],
    [
      'negative beginExclusive',
      () => client().updatesFlats({ beginExclusive: -1, updateFormat: format }),
      /begin_exclusive must not be negative/,
    ],
    [
      'end before begin',
      () => client().updatesFlats({ beginExclusive: 9, endInclusive: 3, updateFormat: format }),
      /is after end offset/,
    ],
    [
      'zero limit',
      () => client().updatesFlats({ beginExclusive: 0, updateFormat: format }, { limit: 0 }),
      /limit/,
    ],
    [
      'requestingParties with transactionFormat',
      () =>
        client().transactionByOffset({
          offset: 4,
          requestingParties: ['alice::1220aa'],
          transactionFormat: format.includeTransactions,
        }),
      /requesting_parties/,
    ],
    ['lookup without a format', () => client().transactionById({ updateId: 'u' }), /transaction_format/],
    [
      'non-positive offset',
      () => client().transactionByOffset({ offset: 0, requestingParties: ['alice::1220aa'] }),
      /positive/,
    ],
    [
      'update-by-offset negative',
      () => client().updateByOffset({ offset: -3, updateFormat: format }),
      /positive/,
    ],
    [
      'empty update mask',
      () => client().updateUser('u1', { user: { id: 'u1' }, updateMask: { paths: [] } }),
      /The update mask contains no entries/,
    ],
    [
      'camelCase mask path',
      () => client().updateUser('u1', { user: { id: 'u1' }, updateMask: { paths: ['primaryParty'] } }),
      /points to an unknown field/,
    ],
    [
      'path and body disagree',
      () => client().updateUser('u1', { user: { id: 'u2' }, updateMask: { paths: ['primary_party'] } }),
      /does not match/,
    ],
    [
      'execute without deduplicationPeriod',
      () =>
        client().executeAndWaitForTransaction({
          preparedTransaction: 'CgQ=',
          partySignatures: { signatures: [] },
          submissionId: 's1',
          hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
        } as never),
      /deduplicationPeriod/,
    ],
    [
      'prepare with an unknown hashing scheme',
      () =>
        client().prepare({
          commandId: 'c1',
          commands: [],
          actAs: ['a'],
          synchronizerId: '',
          packageIdSelectionPreference: [],
          hashingSchemeVersion: 'V9' as never,
        }),
      /hashingSchemeVersion/,
    ],
    [
      'negative vetting page size',
      () => client().listVettedPackages({ pageSize: -1 }),
      /Page size must not be negative/,
    ],
  ];
  for (const [name, call, reason] of cases) {
    it(name, async () => {
      const err = await failure(call());
      expect(err.code).toBe('INVALID_ARGUMENT');
      expect(err.status).toBeUndefined();
      expect(err.errorCategory).toBe(8);
      expect(err).toMatchObject({ retryable: false, outcomeUnknown: false, definiteAnswer: true });
      expect(err.context.source).toBe('client');
      expect(err.message).toMatch(reason);
      expect(server.requests).toHaveLength(0);
    });
  }
});

describe('bodies sent', () => {
  it('allows verbose=false next to updateFormat (proto3 default, sent by the official SDK)', async () => {
    server.handle((_req, res) => json(res, 200, []));
    const client = new LedgerClient({ baseUrl: server.url });
    const updateFormat = { includeTopologyEvents: { includeParticipantAuthorizationEvents: {} } };
    await client.updatesFlats({ beginExclusive: 0, endInclusive: 3, verbose: false, updateFormat });
    expect(server.requests).toHaveLength(1);
  });

  it('normalises numeric strings and sends query parameters of the list endpoints', async () => {
    server.handle((_req, res) => json(res, 200, []));
    const client = new LedgerClient({ baseUrl: server.url });
    await client.updatesFlats(
      { beginExclusive: '5', endInclusive: 9, filter: { filtersByParty: { 'alice::1220aa': {} } } },
      { limit: 50, streamIdleTimeoutMs: 200 },
    );
    const req = server.requests[0]!;
    expect(req.path).toBe('/v2/updates/flats');
    expect(req.query.get('limit')).toBe('50');
    expect(req.query.get('stream_idle_timeout_ms')).toBe('200');
    expect(req.body).toEqual({
      beginExclusive: 5,
      endInclusive: 9,
      filter: { filtersByParty: { 'alice::1220aa': {} } },
    });
  });

  it('escapes path parameters and adds unknownFields to the update mask', async () => {
    server.handle((req, res) => json(res, 200, { user: (req.body as { user: unknown }).user }));
    const client = new LedgerClient({ baseUrl: server.url });
    const out = await client.updateUser('alice/admin', {
      user: { id: 'alice/admin', primaryParty: 'alice::1220aa', metadata: { resourceVersion: '3' } },
      updateMask: { paths: ['primary_party', 'metadata.resource_version'] },
    });
    expect(out.user.primaryParty).toBe('alice::1220aa');
    const req = server.requests[0]!;
    expect(req.method).toBe('PATCH');
    expect(req.path).toBe('/v2/users/alice%2Fadmin');
    expect(req.body).toMatchObject({ updateMask: { unknownFields: { fields: {} } } });
  });
});
