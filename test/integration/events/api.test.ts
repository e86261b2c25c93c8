// The events API over real HTTP: SSE (party scope, filters, resume with Last-Event-ID, 410 past retention,
// heartbeats, bad input), the relay from the submission outbox, and the webhook routes (scope and bad input:
// every answer a 4xx JSON error, never a 500).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog, relayStep } from '../../../src/events/index.ts';
import { apiHarness } from '../../support/api-harness.ts';
import { conn, until } from '../../support/events.ts';
import { payload, record } from '../../support/records.ts';

type Harness = Awaited<ReturnType<typeof apiHarness>>;
let h: Harness;
let log: EventLog;
const redis = conn();
const ALICE = 'alice::1220aa';
const BOB = 'bob::1220bb';

beforeAll(async () => {
  h = await apiHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', EVENTS_HEARTBEAT_SECONDS: '1' });
  log = new EventLog(redis, h.config.redisPrefix);
});
afterAll(async () => {
  await h.close();
  redis.disconnect();
});

interface Frame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/**
 * Opens the stream: resolves once the answer's headers arrived (the server has fixed where the stream starts), with
 * `read` collecting frames until `stop` says so (or the time runs out).
 */
async function openSse(
  query: string,
  token: string,
  stop: (frames: Frame[]) => boolean,
  headers: Record<string, string> = {},
  timeoutMs = 8000,
): Promise<{ status: number; json?: { error: { code: string } }; read: () => Promise<Frame[]> }> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  const res = await fetch(`${h.wallet.url}/wallet/v1/events${query}`, {
    headers: { authorization: `Bearer ${token}`, ...headers },
    signal: ac.signal,
  });
  if (res.status !== 200) {
    clearTimeout(timer);
    return {
      status: res.status,
      json: (await res.json()) as { error: { code: string } },
      read: async () => [],
    };
  }
  const read = async () => {
    const frames: Frame[] = [];
    let buf = '';
    const reader = res.body?.getReader();
    const dec = new TextDecoder();
    try {
      while (reader && !stop(frames)) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i = buf.indexOf('\n\n');
        while (i >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const f: Frame = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) f.comment = line.slice(1).trim();
            else {
              const j = line.indexOf(':');
              const k = line.slice(0, j);
              const v = line.slice(j + 1).replace(/^ /, '');
              if (k === 'id' || k === 'event' || k === 'data') f[k] = v;
            }
          }
          frames.push(f);
          i = buf.indexOf('\n\n');
        }
      }
    } catch {
      // aborted by the timeout
    } finally {
      clearTimeout(timer);
      ac.abort();
    }
    return frames;
  };
  return { status: 200, read };
}

/** Opens the stream and collects its frames (see openSse). */
async function sse(
  query: string,
  token: string,
  stop: (frames: Frame[]) => boolean,
  headers: Record<string, string> = {},
  timeoutMs = 8000,
): Promise<{ status: number; frames: Frame[]; json?: { error: { code: string } } }> {
  const opened = await openSse(query, token, stop, headers, timeoutMs);
  return {
    status: opened.status,
    frames: await opened.read(),
    ...(opened.json ? { json: opened.json } : {}),
  };
}
const events = (fs: Frame[]) => fs.filter((f) => f.id);

describe('GET /wallet/v1/events', () => {
  it('streams new events, resumes after Last-Event-ID with nothing lost, and filters by type', async () => {
    const admin = await h.token('admin');
    const first = await log.append('submission.accepted', ALICE, { n: 1 });
    // Without an id the stream starts at the log's end as the server answers: events after that are streamed.
    const live = await openSse('', admin, (fs) => events(fs).length >= 2);
    const second = await log.append('submission.committed', BOB, { n: 2 });
    const third = await log.append('ledger.gap', '', { n: 3 });
    const got = events(await live.read());
    expect(got.map((f) => f.id)).toEqual([second, third]);
    expect(got[0]?.event).toBe('submission.committed');
    expect(JSON.parse(got[0]?.data ?? '')).toMatchObject({
      id: second,
      type: 'submission.committed',
      party: BOB,
      body: { n: 2 },
    });
    // Resuming after the first event gives the two after it, in order.
    const resumed = await sse('', admin, (fs) => events(fs).length >= 2, { 'last-event-id': first });
    expect(events(resumed.frames).map((f) => f.id)).toEqual([second, third]);
    const typed = await sse(`?types=ledger.gap&after=${first}`, admin, (fs) => events(fs).length >= 1);
    expect(events(typed.frames).map((f) => f.id)).toEqual([third]);
  });

  it('is party-scoped: a party token sees only its party, and another party is 403', async () => {
    const start = await log.end();
    await log.append('submission.accepted', BOB, {});
    const mine = await log.append('submission.accepted', ALICE, {});
    await log.append('ledger.gap', '', {});
    const tok = await h.token('read', ALICE);
    const got = await sse('', tok, (fs) => events(fs).length >= 1 || fs.some((f) => f.comment === 'ping'), {
      'last-event-id': start,
    });
    expect(events(got.frames).map((f) => f.id)).toEqual([mine]);
    expect((await sse(`?party=${encodeURIComponent(BOB)}`, tok, () => true)).status).toBe(403);
    const own = await sse(
      `?party=${encodeURIComponent(ALICE)}&after=${start}`,
      tok,
      (fs) => events(fs).length >= 1,
    );
    expect(events(own.frames).map((f) => f.id)).toEqual([mine]);
  });

  it('sends heartbeats while idle', async () => {
    const got = await sse('?types=submission.expired', await h.token('read'), (fs) =>
      fs.some((f) => f.comment === 'ping'),
    );
    expect(got.frames.some((f) => f.comment === 'ping')).toBe(true);
  });

  it('answers an id past retention with 410 and bad input with 4xx JSON errors', async () => {
    const trimmer = new EventLog(redis, h.config.redisPrefix, { maxAgeMs: 0, maxCount: 1 });
    const old = await log.append('submission.accepted', ALICE, {});
    await log.append('submission.accepted', ALICE, {}); // removed by retention: a reader after `old` missed it
    const kept = await log.append('submission.accepted', ALICE, {});
    await trimmer.trim();
    // The newest removed id itself is still a fine place to resume: nothing after it is gone.
    const fine = await sse('', await h.token('read'), (fs) => events(fs).length >= 1, {
      'last-event-id': await trimmer.trimmedThrough(),
    });
    expect(events(fine.frames).map((f) => f.id)).toEqual([kept]);
    const gone = await sse('', await h.token('read'), () => true, { 'last-event-id': old });
    expect(gone.status).toBe(410);
    expect(gone.json?.error.code).toBe('EVENTS_EXPIRED');
    for (const [q, hdr, status, code] of [
      ['?types=nope', {}, 400, 'INVALID_REQUEST'],
      ['?types=submission.accepted,,x', {}, 400, 'INVALID_REQUEST'],
      ['', { 'last-event-id': 'garbage' }, 400, 'INVALID_EVENT_ID'],
      ['?after=1-2-3', {}, 400, 'INVALID_EVENT_ID'],
      ['?after=99999999999999999999999-0', {}, 400, 'INVALID_EVENT_ID'],
      ['?party=', {}, 400, 'INVALID_REQUEST'],
    ] as const) {
      const r = await sse(q, await h.token('read'), () => true, hdr);
      expect({ status: r.status, code: r.json?.error.code }, q).toEqual({ status, code });
    }
    const anon = await fetch(`${h.wallet.url}/wallet/v1/events`);
    expect(anon.status).toBe(401);
  });
});

describe('relay from the outbox', () => {
  it('turns each outbox entry into one event with the record (never the payload), exactly once across racing relays', async () => {
    const prefix = h.config.redisPrefix;
    const start = await log.end();
    const recs = Array.from({ length: 5 }, () => record({ party: ALICE }));
    for (const r of recs) await h.wallet.store.create(r, payload);
    await h.wallet.store.update(recs[0]?.id ?? '', (r) => ({
      ...r,
      status: 'committed',
      updateId: 'u1',
      completionOffset: 3,
    }));
    await Promise.all([
      relayStep(redis, prefix, 2),
      relayStep(redis, prefix, 3),
      relayStep(redis, prefix),
      relayStep(redis, prefix),
    ]);
    await relayStep(redis, prefix);
    const { events: got } = await log.read(start, {}, 100);
    expect(got.map((e) => e.type)).toEqual([
      ...recs.map(() => 'submission.accepted'),
      'submission.committed',
    ]);
    expect(got.map((e) => (e.body as { id: string }).id)).toEqual([...recs.map((r) => r.id), recs[0]?.id]);
    expect(JSON.stringify(got)).not.toContain('preparedTransaction"');
    expect(got.every((e) => e.party === ALICE)).toBe(true);
  });
});

describe('approval events', () => {
  it('a decision on a record awaiting approval is submission.approval, whatever it led to; a rejection ends it', async () => {
    const prefix = h.config.redisPrefix;
    const start = await log.end();
    const held = record({ party: ALICE, status: 'awaiting_approval' });
    const other = record({ party: ALICE, status: 'awaiting_approval' });
    for (const r of [held, other]) await h.wallet.store.create(r, payload);
    const decide = (id: string, subject: string, status: 'awaiting_approval' | 'accepted' | 'rejected') =>
      h.wallet.store.update(id, (r) => ({
        ...r,
        status,
        approvals: [...(r.approvals ?? []), { subject, decision: 'approve', reason: null, at: r.updatedAt }],
      }));
    await decide(held.id, 'ann', 'awaiting_approval'); // short of the quorum
    await decide(held.id, 'ben', 'accepted'); // the quorum: signed and queued
    await decide(other.id, 'ann', 'rejected');
    await h.wallet.store.update(held.id, (r) => ({ ...r, status: 'queued' })); // not announced
    while ((await relayStep(redis, prefix)) > 0);
    const { events: got } = await log.read(start, {}, 100);
    expect(got.map((e) => [e.type, (e.body as { id: string }).id])).toEqual([
      ['submission.awaiting_approval', held.id],
      ['submission.awaiting_approval', other.id],
      ['submission.approval', held.id],
      ['submission.approval', held.id],
      ['submission.rejected', other.id],
    ]);
  });
});

describe('webhook routes', () => {
  const url = 'http://127.0.0.1:9/hook';
  it('creates (secret shown once), lists, gets, rotates, lists deliveries, redelivers and deletes', async () => {
    const admin = await h.token('admin');
    const created = await h.call('POST', '/wallet/v1/webhooks', {
      token: admin,
      body: { url, types: ['submission.committed'] },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    expect(created.json.secret).toMatch(/^whsec_/);
    const got = await h.call('GET', `/wallet/v1/webhooks/${id}`, { token: admin });
    expect(got.status).toBe(200);
    expect(got.text).not.toContain('whsec_');
    const listed = await h.call('GET', '/wallet/v1/webhooks', { token: admin });
    expect(listed.text).not.toContain('whsec_');
    expect((listed.json.items as { id: string }[]).map((w) => w.id)).toContain(id);
    const rotated = await h.call('POST', `/wallet/v1/webhooks/${id}/rotate-secret`, { token: admin });
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).not.toBe(created.json.secret);
    expect(rotated.json.previousSecretValidUntil).toBeTruthy();
    const ev = await log.append('submission.committed', ALICE, {});
    const re = await h.call('POST', `/wallet/v1/webhooks/${id}/deliveries/${ev}/redeliver`, { token: admin });
    expect(re.status).toBe(202);
    const dl = await h.call('GET', `/wallet/v1/webhooks/${id}/deliveries?limit=5`, { token: admin });
    expect(dl.status).toBe(200);
    expect((dl.json.items as { eventId: string }[]).map((d) => d.eventId)).toEqual([ev]);
    expect((await h.call('DELETE', `/wallet/v1/webhooks/${id}`, { token: admin })).status).toBe(204);
    expect((await h.call('GET', `/wallet/v1/webhooks/${id}`, { token: admin })).status).toBe(404);
  });

  it('keeps party-scoped admins to their own party and refuses other roles', async () => {
    const aliceAdmin = await h.token('admin', ALICE);
    expect((await h.call('POST', '/wallet/v1/webhooks', { token: aliceAdmin, body: { url } })).status).toBe(
      403,
    );
    expect(
      (await h.call('POST', '/wallet/v1/webhooks', { token: aliceAdmin, body: { url, party: BOB } })).status,
    ).toBe(403);
    const mine = await h.call('POST', '/wallet/v1/webhooks', {
      token: aliceAdmin,
      body: { url, party: ALICE },
    });
    expect(mine.status).toBe(201);
    const bobs = await h.call('POST', '/wallet/v1/webhooks', {
      token: await h.token('admin'),
      body: { url, party: BOB },
    });
    const bobId = bobs.json.id as string;
    const list = await h.call('GET', '/wallet/v1/webhooks', { token: aliceAdmin });
    expect((list.json.items as { party: string }[]).every((w) => w.party === ALICE)).toBe(true);
    for (const [m, path] of [
      ['GET', `/wallet/v1/webhooks/${bobId}`],
      ['DELETE', `/wallet/v1/webhooks/${bobId}`],
      ['POST', `/wallet/v1/webhooks/${bobId}/rotate-secret`],
      ['GET', `/wallet/v1/webhooks/${bobId}/deliveries`],
    ] as const) {
      expect((await h.call(m, path, { token: aliceAdmin })).status, `${m} ${path}`).toBe(404);
    }
    for (const role of ['read', 'submit'] as const) {
      expect((await h.call('GET', '/wallet/v1/webhooks', { token: await h.token(role) })).status).toBe(403);
      expect(
        (await h.call('POST', '/wallet/v1/webhooks', { token: await h.token(role), body: { url } })).status,
      ).toBe(403);
    }
  });

  it('answers bad input with a 4xx JSON error, never a 500', async () => {
    const admin = await h.token('admin');
    const id = (await h.call('POST', '/wallet/v1/webhooks', { token: admin, body: { url } })).json
      .id as string;
    const cases: [string, string, unknown, number, string][] = [
      ['POST', '/wallet/v1/webhooks', { url: 'not a url' }, 400, 'INVALID_REQUEST'],
      ['POST', '/wallet/v1/webhooks', { url: 'ftp://x.example/' }, 400, 'INVALID_REQUEST'],
      ['POST', '/wallet/v1/webhooks', { url: 'http://u:p@x.example/' }, 400, 'INVALID_REQUEST'],
      ['POST', '/wallet/v1/webhooks', { url, types: ['nope'] }, 400, 'INVALID_REQUEST'],
      ['POST', '/wallet/v1/webhooks', { url, extra: 1 }, 400, 'INVALID_REQUEST'],
      ['POST', '/wallet/v1/webhooks', { url: 'x'.repeat(5000) }, 413, 'TOO_LARGE'],
      ['POST', '/wallet/v1/webhooks', '{"url":', 400, 'INVALID_JSON'],
      ['POST', '/wallet/v1/webhooks', [], 400, 'INVALID_REQUEST'],
      ['GET', '/wallet/v1/webhooks/not-an-id', undefined, 400, 'INVALID_REQUEST'],
      ['GET', '/wallet/v1/webhooks/wh_AAAAAAAAAAAAAAAAAAAAAA', undefined, 404, 'NOT_FOUND'],
      ['GET', `/wallet/v1/webhooks/${id}/deliveries?limit=0`, undefined, 400, 'INVALID_REQUEST'],
      ['GET', `/wallet/v1/webhooks/${id}/deliveries?limit=abc`, undefined, 400, 'INVALID_REQUEST'],
      ['POST', `/wallet/v1/webhooks/${id}/deliveries/garbage/redeliver`, undefined, 400, 'INVALID_EVENT_ID'],
      ['POST', `/wallet/v1/webhooks/${id}/deliveries/1-0/redeliver`, undefined, 404, 'NOT_FOUND'],
    ];
    for (const [m, path, body, status, code] of cases) {
      const r = await h.call(m, path, { token: admin, ...(body !== undefined ? { body } : {}) });
      const what = `${m} ${path} ${JSON.stringify(body)?.slice(0, 40)}`;
      expect({ status: r.status, code: r.json?.error?.code }, what).toEqual({ status, code });
    }
  });

  it('refuses loopback and private targets unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true', async () => {
    const strict = await apiHarness();
    try {
      for (const target of [
        'http://127.0.0.1/x',
        'http://10.1.2.3/x',
        'http://[::1]/x',
        'http://localhost/x',
        'http://192.168.0.1/',
      ]) {
        const r = await strict.call('POST', '/wallet/v1/webhooks', {
          token: await strict.token('admin'),
          body: { url: target },
        });
        expect(r.status, target).toBe(422);
        expect(r.json.error?.code).toBe('PRIVATE_TARGET');
      }
    } finally {
      await strict.close();
    }
  });
});

void until;
