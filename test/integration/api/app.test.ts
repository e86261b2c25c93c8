import { rmSync, writeFileSync } from 'node:fs';
import { type ClientRequest, request } from 'node:http';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, issueToken, parseTtl } from '../../../src/auth/index.ts';
import { apiHarness, SECRET } from '../../support/api-harness.ts';

let h: Awaited<ReturnType<typeof apiHarness>>;
beforeAll(async () => {
  h = await apiHarness();
});
afterAll(() => h.close());

describe('probes, metrics, OpenAPI and docs', () => {
  it('serves health, readiness and Prometheus metrics without a token', async () => {
    expect((await h.call('GET', '/healthz')).json).toEqual({ status: 'ok' });
    const ready = await h.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json).toMatchObject({ redis: true, ledger: true });
    const metrics = await h.call('GET', '/metrics');
    expect(metrics.text).toContain('quill_submissions_accepted_total');
    expect(metrics.text).toContain('quill_commit_latency_seconds');
  });

  it('documents every route and the error shape, and serves the docs locally', async () => {
    const doc = await h.call('GET', '/openapi.json');
    const paths = Object.keys(doc.json.paths as object);
    for (const p of [
      '/wallet/v1/submissions',
      '/wallet/v1/submissions/batch',
      '/wallet/v1/submissions/{id}',
      '/wallet/v1/updates/{updateId}',
      '/wallet/v1/keys',
      '/wallet/v1/keys/{fingerprint}',
      '/wallet/v1/keys/{fingerprint}/disable',
      '/wallet/v1/parties',
      '/wallet/v1/events',
      '/healthz',
      '/readyz',
      '/metrics',
    ]) {
      expect(paths).toContain(p);
    }
    // Every operation has a unique operationId (what generated clients name their calls after).
    const ops = Object.values(
      doc.json.paths as Record<string, Record<string, { operationId?: string }>>,
    ).flatMap((byMethod) => Object.values(byMethod));
    const ids = ops.map((o) => o.operationId);
    expect(ids.filter((id) => typeof id !== 'string' || !/^[a-z][A-Za-z]+$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    // biome-ignore lint/suspicious/noExplicitAny: the JSON document, read field by field
    const paths2 = doc.json.paths as Record<string, Record<string, any>>;
    const post = paths2['/wallet/v1/submissions']?.post;
    expect(post.operationId).toBe('createSubmission');
    expect(post.requestBody.content['application/json'].example.preparedTransaction).toBeTruthy();
    expect(post.responses['202'].content['application/json'].example.status).toBe('queued');
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['413', '429']));
    expect(post.responses['429'].headers['Retry-After']).toBeDefined();
    expect(post.responses['422'].content['application/json'].example.error.code).toBe('HASH_MISMATCH');
    const events = paths2['/wallet/v1/events']?.get;
    expect(events.operationId).toBe('streamEvents');
    expect(Object.keys(events.responses['200'].content)).toEqual(['text/event-stream']);
    expect(events.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'after',
      'last-event-id',
      'party',
      'types',
    ]);
    expect(doc.json.servers).toEqual([{ url: '/', description: 'this wallet' }]);
    const bearer = (doc.json.components as { securitySchemes: { bearer: { description: string } } })
      .securitySchemes.bearer;
    expect(bearer.description).toContain('quill:approve');
    expect(bearer.description).toContain('`sub` is required');
    const schemas = (doc.json.components as { schemas: Record<string, unknown> }).schemas;
    expect(schemas.Error).toBeDefined();
    expect(schemas.Submission).toBeDefined();
    expect(schemas.BatchSubmissionItem).toBeDefined();
    const html = await h.call('GET', '/docs');
    expect(html.text).toContain('/docs/assets/swagger-ui-dist/swagger-ui-bundle.js');
    expect(html.text).not.toMatch(/cdn\.|unpkg|jsdelivr/);
    const js = await h.call('GET', '/docs/assets/swagger-ui-dist/swagger-ui-bundle.js');
    expect(js.status).toBe(200);
    expect(js.text.length).toBeGreaterThan(100_000);
    expect((await h.call('GET', '/docs/assets/swagger-ui-dist/..%2Fpackage.json')).status).toBe(404);
    expect((await h.call('GET', '/nope')).json.error?.code).toBe('NOT_FOUND');
  });
});

describe('keys over HTTP (admin)', () => {
  it('generates, lists, shows and disables keys', async () => {
    const admin = await h.token('admin');
    const made = await h.call('POST', '/wallet/v1/keys', {
      token: admin,
      body: { algorithm: 'p256', label: 'ops' },
    });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ algorithm: 'p256', label: 'ops', status: 'active' });
    expect(JSON.stringify(made.json)).not.toMatch(/private|secret/i);
    const fp = made.json.fingerprint as string;
    const list = await h.call('GET', '/wallet/v1/keys', { token: admin });
    expect((list.json.items as { fingerprint: string }[]).map((k) => k.fingerprint)).toContain(fp);
    expect((await h.call('GET', `/wallet/v1/keys/${fp}`, { token: admin })).json.fingerprint).toBe(fp);
    expect((await h.call('GET', `/wallet/v1/keys/1220${'0'.repeat(64)}`, { token: admin })).status).toBe(404);
    expect((await h.call('GET', '/wallet/v1/keys/xyz', { token: admin })).status).toBe(400);
    expect(
      (await h.call('POST', '/wallet/v1/keys', { token: admin, body: { algorithm: 'rsa' } })).status,
    ).toBe(400);
    const off = await h.call('POST', `/wallet/v1/keys/${fp}/disable`, { token: admin });
    expect(off.json.status).toBe('disabled');
  });
});

describe('tokens', () => {
  it('verifies roles and party scope, refuses expired, unsigned and alg-confused tokens', async () => {
    const verify = createVerifier({ jwtSecret: SECRET, algorithms: ['HS256'] });
    const t = await issueToken({ secret: SECRET, role: 'submit', party: 'alice::1220', ttlSeconds: 60 });
    expect(await verify(t)).toMatchObject({ role: 'submit', party: 'alice::1220' });
    const expired = await new SignJWT({ role: 'admin' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(SECRET));
    await expect(verify(expired)).rejects.toThrow(/expired/);
    const other = await issueToken({ secret: 'x'.repeat(40), role: 'admin', ttlSeconds: 60 });
    await expect(verify(other)).rejects.toThrow(/invalid/);
    const noRole = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    await expect(verify(noRole)).rejects.toThrow(/role/);
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"role":"admin","exp":9999999999}').toString('base64url')}.`;
    await expect(verify(none)).rejects.toThrow(/invalid/);
    expect(parseTtl('1h')).toBe(3600);
    expect(() => parseTtl('soon')).toThrow(/ttl/);
  });
});

describe('body size limit (32 MiB)', () => {
  /** Sends a POST by hand so the body can be declared, streamed in chunks, or never sent. */
  function rawPost(
    headers: Record<string, string>,
    write: (req: ClientRequest) => void,
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(`${h.wallet.url}/wallet/v1/submissions`, {
        method: 'POST',
        headers,
        agent: false,
      });
      req.on('error', (err) => (/EPIPE|ECONNRESET/.test(String(err)) ? undefined : reject(err)));
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        });
      });
      write(req);
    });
  }
  const MiB = 1024 * 1024;

  it('refuses a declared length over the limit before reading the body', async () => {
    const res = await rawPost(
      { 'content-type': 'application/json', 'content-length': String(33 * MiB) },
      (req) => req.flushHeaders(),
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('TOO_LARGE');
  });

  it('refuses a chunked body once it grows over the limit', async () => {
    const res = await rawPost({ 'content-type': 'application/json' }, (req) => {
      const chunk = Buffer.alloc(MiB, 0x20);
      for (let i = 0; i < 33; i++) req.write(chunk);
      req.end();
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('TOO_LARGE');
  });

  it('reads a declared body under the limit as usual', async () => {
    const res = await rawPost({ 'content-type': 'application/json', 'content-length': '2' }, (req) =>
      req.end('{}'),
    );
    expect(res.status).toBe(401);
  });
});

describe('operator logs', () => {
  const linesFor = (requestId: string | null) => h.logs.filter((l) => l.requestId === requestId);

  it('gives every request an id (the caller’s own when it is a sane token) and logs one line for it', async () => {
    const own = await h.call('GET', '/healthz', { headers: { 'x-request-id': 'custody-42.a:b' } });
    expect(own.headers.get('x-request-id')).toBe('custody-42.a:b');
    expect(linesFor('custody-42.a:b')).toEqual([
      expect.objectContaining({
        level: 'debug',
        msg: 'request',
        method: 'GET',
        path: '/healthz',
        status: 200,
      }),
    ]);

    const read = await h.token('read');
    const odd = await h.call('GET', '/wallet/v1/submissions', {
      token: read,
      headers: { 'x-request-id': `${'x'.repeat(129)}` },
    });
    const id = odd.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(linesFor(id)).toEqual([
      expect.objectContaining({
        level: 'info',
        path: '/wallet/v1/submissions',
        status: 200,
        subject: 't-read',
      }),
    ]);
    expect(JSON.stringify(h.logs)).not.toContain(read);
  });

  it('puts the request id on every kind of response: JSON, an error, plain text, a file', async () => {
    // Set after the route answered, on the response itself (src/api/headers.ts): each kind keeps it.
    const read = await h.token('read');
    for (const [path, token] of [
      ['/wallet/v1/submissions', read],
      ['/wallet/v1/no-such-route', read],
      ['/metrics', undefined],
      ['/openapi.json', undefined],
    ] as const) {
      const res = await h.call('GET', path, {
        ...(token ? { token } : {}),
        headers: { 'x-request-id': `id-${path.length}` },
      });
      expect(res.headers.get('x-request-id'), path).toBe(`id-${path.length}`);
    }
  });

  it('reads a body as Request.text() does: a BOM dropped, bad UTF-8 replaced, not-JSON refused', async () => {
    const token = await h.token('submit');
    const post = async (body: Uint8Array) => {
      const res = await fetch(`${h.wallet.url}/wallet/v1/submissions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      return { status: res.status, json: await res.json() };
    };
    const bytes = (...parts: (string | number[])[]) =>
      Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    const plain = await post(bytes('{"preparedTransaction":"x"}'));
    expect(plain.status).toBe(400);
    expect(await post(bytes([0xef, 0xbb, 0xbf], '{"preparedTransaction":"x"}'))).toEqual(plain);
    // An invalid byte inside a string becomes U+FFFD, as the replacement character itself would read.
    expect(await post(bytes('{"preparedTransaction":"', [0xff], '"}'))).toEqual(
      await post(bytes('{"preparedTransaction":"\uFFFD"}')),
    );
    const notJson = await post(bytes('{"preparedTransaction":'));
    expect(notJson).toMatchObject({ status: 400, json: { error: { code: 'INVALID_JSON' } } });
  });

  it('answers an unexpected failure with a bare 500 and logs the cause with the request id', async () => {
    const broken = await apiHarness();
    try {
      // The key store's folder replaced by a file: generating a key fails in a way no rule expects.
      rmSync(broken.dir, { recursive: true, force: true });
      writeFileSync(broken.dir, 'not a folder');
      const res = await broken.call('POST', '/wallet/v1/keys', {
        token: await broken.token('admin'),
        body: { algorithm: 'ed25519' },
      });
      expect(res.status).toBe(500);
      expect(res.json).toEqual({ error: { code: 'INTERNAL', message: 'internal error' } });
      const id = res.headers.get('x-request-id');
      const lines = broken.logs.filter((l) => l.requestId === id);
      expect(lines).toEqual([
        expect.objectContaining({ level: 'error', msg: 'unexpected error', error: expect.any(String) }),
        expect.objectContaining({ level: 'error', msg: 'request', status: 500 }),
      ]);
    } finally {
      await broken.close();
    }
  });
});
