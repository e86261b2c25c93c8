/** ScanClient against a real HTTP server that serves a page of the vectors like the scan does. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LedgerError } from '../../src/ledger/index.ts';
import { ScanClient } from '../../src/scan/index.ts';
import { json, startServer, type TestServer, text } from '../ledger/http-server.ts';
import { scanSpec } from '../support/openapi.ts';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'scan');
const feed = (
  JSON.parse(readFileSync(join(DIR, 'synthesized-activities-page-zero-fee.coin.json'), 'utf8')) as {
    activities: Array<{ event_id: string }>;
  }
).activities;

let server: TestServer;

/** The scan's paging: newest first, exclusive cursor, unknown cursor → [], "" = none. */
function serveFeed(): void {
  server.handle((req, res) => {
    if (req.path !== '/api/scan/v0/activities') return json(res, 404, { error: `not found: ${req.path}` });
    const body = req.body as { page_size: number; begin_after_id?: string | null };
    if (body.page_size < 1) return json(res, 400, { error: 'Limit must be at least 1.' });
    let start = 0;
    if (body.begin_after_id) {
      const i = feed.findIndex((a) => a.event_id === body.begin_after_id);
      if (i < 0) return json(res, 200, { activities: [] });
      start = i + 1;
    }
    json(res, 200, { activities: feed.slice(start, start + body.page_size) });
  });
}

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  serveFeed();
});

async function failure(promise: Promise<unknown>): Promise<LedgerError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LedgerError);
  return err as LedgerError;
}

const client = () => new ScanClient({ baseUrl: `${server.url}/api/scan`, timeoutMs: 2000 });

describe('listActivities', () => {
  it('posts a spec-valid body and parses the page', async () => {
    const page = await client().listActivities({ page_size: 3 });
    expect(page.activities.map((a) => a.event_id)).toEqual(feed.slice(0, 3).map((a) => a.event_id));
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.body).toEqual({ page_size: 3 });
    scanSpec().expectValidRequest('/v0/activities', 'post', req.body);
  });

  it('checks page_size before sending, with the server wording', async () => {
    for (const [size, msg] of [
      [0, 'Limit must be at least 1.'],
      [1001, 'Exceeded limit maximum (1001 > 1000).'],
    ] as const) {
      const err = await failure(client().listActivities({ page_size: size }));
      expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', status: undefined });
      expect(err.message).toContain(msg);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('maps the {error} body, text/plain 429 and an unreadable page to LedgerErrors', async () => {
    server.handle((_req, res) => json(res, 503, { error: 'The server is taking too long to respond' }));
    let err = await failure(client().listActivities({ page_size: 5 }));
    expect(err).toMatchObject({ status: 503, code: 'HTTP_503', retryable: true, outcomeUnknown: false });
    expect(err.message).toContain('taking too long');

    server.handle((_req, res) => json(res, 404, { error: 'The requested resource could not be found' }));
    err = await failure(client().listActivities({ page_size: 5 }));
    expect(err).toMatchObject({ status: 404, code: 'HTTP_404', retryable: false });

    server.handle((_req, res) =>
      text(res, 429, 'Too Many Requests: Server is busy, please try again later.'),
    );
    err = await failure(client().listActivities({ page_size: 5 }));
    expect(err).toMatchObject({ status: 429, code: 'HTTP_429', retryable: true });

    server.handle((_req, res) =>
      json(res, 200, { activities: [{ activity_type: 'transfer', event_id: '#x:1' }] }),
    );
    err = await failure(client().listActivities({ page_size: 5 }));
    expect(err.code).toBe('INVALID_RESPONSE');
    expect(err.message).toContain('activities.0');
  });
});

describe('iterateActivities', () => {
  it('walks the whole feed with begin_after_id and stops on an empty page', async () => {
    const seen: string[] = [];
    for await (const a of client().iterateActivities({ pageSize: 3 })) seen.push(a.event_id);
    expect(seen).toEqual(feed.map((a) => a.event_id));
    // One request per page plus the final empty one; each cursor is the last id of the page before.
    const cursors = server.requests.map((r) => (r.body as { begin_after_id?: string }).begin_after_id);
    const expected: Array<string | undefined> = [undefined];
    for (let end = 3; end < feed.length; end += 3) expected.push(feed[end - 1]!.event_id);
    expected.push(feed.at(-1)!.event_id);
    expect(cursors).toEqual(expected);
  });

  it('starts after a given cursor', async () => {
    const seen: string[] = [];
    for await (const a of client().iterateActivities({ pageSize: 100, beginAfterId: feed[1]!.event_id })) {
      seen.push(a.event_id);
    }
    expect(seen).toEqual(feed.slice(2).map((a) => a.event_id));
  });

  it("walks INTERFACE.md's feed too: ascending string ids, activities greater than the cursor", async () => {
    // The sandbox's feed (INTERFACE.md 4.8): ids increase as strings, oldest first, any string is a bound.
    const ascending = feed.map((a, i) => ({
      ...a,
      event_id: `#${String(i + 1).padStart(20, '0')}:0000000000`,
    }));
    server.handle((req, res) => {
      const body = req.body as { page_size: number; begin_after_id?: string | null };
      const after = body.begin_after_id ?? '';
      json(res, 200, { activities: ascending.filter((a) => a.event_id > after).slice(0, body.page_size) });
    });
    const seen: string[] = [];
    for await (const a of client().iterateActivities({ pageSize: 4 })) seen.push(a.event_id);
    expect(seen).toEqual(ascending.map((a) => a.event_id));
  });

  it('refuses to loop on a server that echoes the cursor', async () => {
    server.handle((req, res) => {
      const after = (req.body as { begin_after_id?: string }).begin_after_id;
      const item = feed.find((a) => a.event_id === after) ?? feed[0];
      json(res, 200, { activities: [item] });
    });
    const run = async () => {
      for await (const _ of client().iterateActivities({ pageSize: 1 })) {
        /* drain */
      }
    };
    await expect(run()).rejects.toThrow(/cursor/);
  });
});
