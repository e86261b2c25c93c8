// F10: every event stream holds a Redis connection, so one token opening 300 streams is capped (here 200 per
// token, 250 per process) and the rest get 429 TOO_MANY_STREAMS with Retry-After; a slot frees when its stream
// closes, another token still gets a stream, and the quill_event_streams_open gauge follows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHarness } from '../../support/api-harness.ts';
import { until } from '../../support/events.ts';

type Harness = Awaited<ReturnType<typeof apiHarness>>;
let h: Harness;
const ALICE = 'alice::1220aa';
const BOB = 'bob::1220bb';

beforeAll(async () => {
  h = await apiHarness({
    EVENTS_MAX_STREAMS_PER_TOKEN: '200',
    EVENTS_MAX_STREAMS: '250',
    EVENTS_HEARTBEAT_SECONDS: '1',
  });
});
afterAll(async () => {
  await h.close();
});

interface Opened {
  status: number;
  /** Held so the client keeps the stream open: fetch cancels a response that is garbage-collected. */
  res: Response;
  code?: string;
  message?: string;
  retryAfter: string | null;
  close: () => void;
}

/** Opens a stream and leaves it open (until `close`); a refusal is read whole. */
async function open(token: string): Promise<Opened> {
  const ac = new AbortController();
  const res = await fetch(`${h.wallet.url}/wallet/v1/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: ac.signal,
  });
  if (res.status === 200) return { status: 200, res, retryAfter: null, close: () => ac.abort() };
  const body = (await res.json()) as { error: { code: string; message: string } };
  return {
    status: res.status,
    res,
    code: body.error.code,
    message: body.error.message,
    retryAfter: res.headers.get('retry-after'),
    close: () => {},
  };
}

async function gauge(): Promise<number> {
  const text = await (await fetch(`${h.wallet.url}/metrics`)).text();
  return Number(/^quill_event_streams_open (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

describe('event streams are bounded (F10)', () => {
  it('300 streams from one token: 200 open, 100 refused with 429 TOO_MANY_STREAMS; slots free on close', async () => {
    const alice = await h.token('read', ALICE);
    const all = await Promise.all(Array.from({ length: 300 }, () => open(alice)));
    const ok = all.filter((o) => o.status === 200);
    const refused = all.filter((o) => o.status !== 200);
    try {
      expect(ok).toHaveLength(200);
      expect(refused).toHaveLength(100);
      for (const r of refused) {
        expect({ status: r.status, code: r.code, retryAfter: r.retryAfter }).toEqual({
          status: 429,
          code: 'TOO_MANY_STREAMS',
          retryAfter: '5',
        });
        expect(r.message).toMatch(/this token may hold at most 200 event streams/);
      }
      expect(await gauge()).toBe(200);

      // Another token is not held back by the first one's streams.
      const bob = await h.token('read', BOB);
      const other = await open(bob);
      ok.push(other);
      expect(other.status).toBe(200);
      expect(await gauge()).toBe(201);

      // The process cap: 250 in all, whichever tokens hold them.
      const more = await Promise.all(Array.from({ length: 60 }, () => open(bob)));
      ok.push(...more.filter((o) => o.status === 200));
      expect(more.filter((o) => o.status === 200)).toHaveLength(49);
      const full = more.filter((o) => o.status !== 200);
      expect(full).toHaveLength(11);
      expect(
        full.every((o) => o.code === 'TOO_MANY_STREAMS' && /this server holds 250/.test(o.message ?? '')),
      ).toBe(true);
      expect(await gauge()).toBe(250);

      // Closing ten of alice's streams frees ten slots, for her and for the process.
      for (const o of ok.splice(0, 10)) o.close();
      await until(async () => (await gauge()) === 240, 10_000, 'the closed streams to be released');
      const again = await Promise.all(Array.from({ length: 10 }, () => open(alice)));
      ok.push(...again.filter((o) => o.status === 200));
      expect(again.map((o) => o.status)).toEqual(Array(10).fill(200));
      expect((await open(alice)).status).toBe(429);
    } finally {
      for (const o of ok) o.close();
    }
    await until(async () => (await gauge()) === 0, 10_000, 'every stream to be released');
  });
});
