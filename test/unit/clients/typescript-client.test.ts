// The checked-in typed client (clients/typescript) matches the OpenAPI document the code declares now, and its
// calls are typed by it: a route or schema change without `npm run client:generate` fails here.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createQuillClient } from '../../../clients/typescript/index.ts';
import { clientTypes, SCHEMA_FILE } from '../../../scripts/generate-client.ts';

describe('the typed TypeScript client', () => {
  it('is generated from the live OpenAPI document', async () => {
    const fresh = await clientTypes();
    const checkedIn = readFileSync(SCHEMA_FILE, 'utf8');
    if (fresh !== checkedIn) {
      expect.fail(
        'clients/typescript/schema.d.ts differs from the OpenAPI document the code declares: run `npm run client:generate` and commit the result',
      );
    }
    expect(fresh).toContain('createSubmission: {');
    expect(fresh).toContain('streamEvents: {');
  }, 60_000);

  it('sends the bearer token and the Idempotency-Key, and answers {data} or {error}', async () => {
    const seen: { url?: string; auth?: string; key?: string; body?: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({
          ...(req.url ? { url: req.url } : {}),
          ...(req.headers.authorization ? { auth: req.headers.authorization } : {}),
          ...(typeof req.headers['idempotency-key'] === 'string'
            ? { key: req.headers['idempotency-key'] }
            : {}),
          body,
        });
        res.writeHead(422, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'HASH_MISMATCH', message: 'no' } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const quill = createQuillClient(`http://127.0.0.1:${port}/`, 'tok');
      const { data, error, response } = await quill.POST('/wallet/v1/submissions', {
        params: { query: { wait: 5 }, header: { 'idempotency-key': 'k-1' } },
        body: {
          preparedTransaction: 'AAAA',
          hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
          party: 'p::1',
        },
      });
      expect(response.status).toBe(422);
      expect(data).toBeUndefined();
      expect(error?.error.code).toBe('HASH_MISMATCH');
      expect(seen).toEqual([
        {
          url: '/wallet/v1/submissions?wait=5',
          auth: 'Bearer tok',
          key: 'k-1',
          body: JSON.stringify({
            preparedTransaction: 'AAAA',
            hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
            party: 'p::1',
          }),
        },
      ]);
    } finally {
      server.close();
    }
  });
});
