// The websocket forms of the streams (A17; asyncapi 3.5): GET /v2/updates, /v2/updates/flats, /v2/updates/trees
// and /v2/commands/completions, as canton 3.5 serves them (Endpoints.websocket, JsUpdateService,
// JsCommandService; tapir 1.11 PekkoWebSockets on pekko-http). Each test names the code it copies.

import {
  CompletionStreamResponse,
  JsCantonError,
  JsGetUpdatesResponse,
  JsGetUpdateTreesResponse,
} from '@quill/canton/ledger';
import { asyncSpec } from '@quill/canton/testing/openapi';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import type { z } from 'zod';
import { call, onboard, type Party, run, type Sandbox, sandboxWithAdmin, tapCommand } from './helpers.ts';

let sb: Sandbox;
let admin: string;
let alice: Party;
let bob: Party;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  alice = await onboard(sb, admin);
  bob = await onboard(sb, admin);
  for (let i = 0; i < 3; i++) await run(sb, alice, [tapCommand(sb, alice.partyId, '1.0000000000')]);
  await run(sb, bob, [tapCommand(sb, bob.partyId, '1.0000000000')]);
});
afterAll(async () => {
  await sb?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: frames are read as JSON
type Frame = any;
interface Session {
  ws: WebSocket;
  frames: Frame[];
  /** Resolves with the close code once the server closed (or the client gave up). */
  closed: Promise<number>;
  /** Resolves once `n` frames arrived. */
  until(n: number, ms?: number): Promise<Frame[]>;
}

const wsUrl = (path: string) => `${sb.url.replace(/^http/, 'ws')}${path}`;

/** Opens a websocket as the participant's own clients do (`jwt.token.<token>, daml.ws.auth`), sends `message`. */
async function open(
  path: string,
  message: unknown,
  opts: { token?: string; protocols?: string[]; headers?: Record<string, string> } = {},
): Promise<Session> {
  const protocols = opts.protocols ?? [...(opts.token ? [`jwt.token.${opts.token}`] : []), 'daml.ws.auth'];
  const ws = new WebSocket(wsUrl(path), protocols, { headers: opts.headers });
  const frames: Frame[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (data, isBinary) => {
    expect(isBinary).toBe(false);
    frames.push(JSON.parse(String(data)));
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  const until = async (n: number, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (frames.length < n) {
      if (Date.now() > deadline) throw new Error(`${frames.length} of ${n} frames after ${ms} ms`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 50);
      });
    }
    return frames;
  };
  return { ws, frames, closed, until };
}

/** A bounded session: every frame until the server closes. */
async function whole(path: string, message: unknown, opts: Parameters<typeof open>[2] = {}) {
  const s = await open(path, message, opts);
  const code = await s.closed;
  return { frames: s.frames, code };
}

/** The handshake's failure as the client sees it: an HTTP answer instead of the upgrade. */
function refusedUpgrade(path: string, protocols: string[], headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: Frame; text: string; type: string }>((resolve, reject) => {
    const ws = new WebSocket(wsUrl(path), protocols, { headers });
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d) => {
        text += String(d);
      });
      res.on('end', () => {
        let body: Frame;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body, text, type: String(res.headers['content-type']) });
      });
    });
    ws.on('open', () => reject(new Error('upgraded')));
    ws.on('error', () => undefined);
  });
}

/** A frame parses with the ledger schema and the asyncapi component of its message. */
function expectFrame(frame: Frame, schema: z.ZodType, component: string) {
  expect(schema.safeParse(frame).success, JSON.stringify(frame)).toBe(true);
  asyncSpec().expectValidComponent(component, frame);
  if (component !== 'JsCantonError')
    asyncSpec().expectValidComponent(`Either_JsCantonError_${component}`, frame);
}

/** An error frame: a JsCantonError, valid for the ledger schema and the asyncapi, with its category in context. */
/** A security-sensitive error, redacted as the participant sends it (DecodedCantonError.redactedError). */
function expectRedactedFrame(frame: Frame, grpcCodeValue: 16 | 7) {
  expect(frame, JSON.stringify(frame)).toMatchObject({
    code: 'NA',
    errorCategory: -1,
    grpcCodeValue,
    context: {},
  });
  expectFrame(frame, JsCantonError, 'JsCantonError');
}

function expectErrorFrame(frame: Frame, code: string) {
  expect(frame.code, JSON.stringify(frame)).toBe(code);
  expectFrame(frame, JsCantonError, 'JsCantonError');
  expect(frame.context.category).toBe(String(frame.errorCategory));
}

/** The same error as the POST form's body, but for the ids made fresh per answer. */
function sameError(frame: Frame, body: Frame) {
  const strip = (e: Frame) => ({ ...e, traceId: null, context: { ...e.context, tid: null } });
  expect(strip(frame)).toEqual(strip(body));
}

const transactionsOf = (party: string) => ({
  includeTransactions: {
    eventFormat: { filtersByParty: { [party]: {} }, verbose: true },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
  },
});
const legacyFilter = (party: string) => ({ filter: { filtersByParty: { [party]: {} } }, verbose: true });

describe('each form streams what the list form returns (Endpoints.websocket and asList run one service flow)', () => {
  const cases = [
    { path: '/v2/updates', request: (p: string) => ({ updateFormat: transactionsOf(p) }) },
    { path: '/v2/updates/flats', request: (p: string) => ({ updateFormat: transactionsOf(p) }) },
    { path: '/v2/updates/flats', request: legacyFilter },
    { path: '/v2/updates/trees', request: legacyFilter },
  ];
  test.each(cases)(
    '$path: a bounded range, frame by frame, then closed with 1000',
    async ({ path, request }) => {
      // JsUpdateService.getUpdatesEndpoint / getUpdatesFlatEndpoint / getUpdatesTreeEndpoint; the flow completes
      // with the gRPC stream and pekko-http closes Regular (FrameOutHandler: UserHandlerCompleted).
      const body = { beginExclusive: 0, endInclusive: sb.state.log.end, ...request(alice.partyId) };
      const list = await call(sb.url, 'POST', path, body, alice.token);
      expect(list.status, list.text).toBe(200);
      expect(list.json.length).toBeGreaterThanOrEqual(3); // three taps (and a topology event in the legacy form)
      asyncSpec().expectValidComponent('GetUpdatesRequest', body);
      const { frames, code } = await whole(path, body, { token: alice.token });
      expect(frames).toEqual(list.json);
      expect(code).toBe(1000);
      const trees = path.endsWith('/trees');
      for (const f of frames)
        expectFrame(
          f,
          trees ? JsGetUpdateTreesResponse : JsGetUpdatesResponse,
          trees ? 'JsGetUpdateTreesResponse' : 'JsGetUpdatesResponse',
        );
    },
  );

  test('descending order: the same frames as the list, newest first', async () => {
    const body = {
      beginExclusive: 0,
      endInclusive: sb.state.log.end,
      descendingOrder: true,
      updateFormat: transactionsOf(alice.partyId),
    };
    const list = await call(sb.url, 'POST', '/v2/updates', body, alice.token);
    const { frames } = await whole('/v2/updates', body, { token: alice.token });
    expect(frames).toEqual(list.json);
  });

  test('/v2/commands/completions: the list form’s completions, and the stream stays open', async () => {
    // JsCommandService.completionStreamEndpoint: the completion stream never ends by itself.
    const body = { userId: alice.userId, parties: [alice.partyId], beginExclusive: 0 };
    asyncSpec().expectValidComponent('CompletionStreamRequest', body);
    const list = await call(
      sb.url,
      'POST',
      '/v2/commands/completions?stream_idle_timeout_ms=100',
      body,
      alice.token,
    );
    expect(list.status, list.text).toBe(200);
    expect(list.json).toHaveLength(3);
    const s = await open('/v2/commands/completions', body, { token: alice.token });
    expect(await s.until(3)).toEqual(list.json);
    for (const f of s.frames) expectFrame(f, CompletionStreamResponse, 'CompletionStreamResponse');
    await sleep(700); // beyond the list form's idle wait (http-list-wait-time, 500 ms): no idle timeout here
    expect(s.ws.readyState).toBe(WebSocket.OPEN);
    const tx = await run(sb, alice, [tapCommand(sb, alice.partyId, '1.0000000000')]);
    const [, , , next] = await s.until(4);
    expect(next.completionResponse.Completion.value).toMatchObject({
      offset: tx.offset,
      updateId: tx.updateId,
    });
    s.ws.close();
    expect(await s.closed).toBe(1005);
  });
});

describe('open-ended streams (prepareSingleWsStream: no limit, no idle timeout)', () => {
  test('deliver an update committed after the socket opened, and stay open', async () => {
    const begin = sb.state.log.end;
    const s = await open(
      '/v2/updates',
      { beginExclusive: begin, updateFormat: transactionsOf(bob.partyId) },
      {
        token: bob.token,
      },
    );
    await sleep(700);
    expect([s.frames, s.ws.readyState]).toEqual([[], WebSocket.OPEN]);
    const tx = await run(sb, bob, [tapCommand(sb, bob.partyId, '2.0000000000')]);
    const [frame] = await s.until(1);
    expect(frame.update.Transaction.value).toMatchObject({ offset: tx.offset, updateId: tx.updateId });
    expectFrame(frame, JsGetUpdatesResponse, 'JsGetUpdatesResponse');
    await sleep(100);
    expect(s.ws.readyState).toBe(WebSocket.OPEN);
    s.ws.close(1000);
    await s.closed;
  });

  test('carry OffsetCheckpoints as the open-ended list does (IndexServiceImpl.updates checkpointFlow)', async () => {
    const other = await sandboxWithAdmin({
      options: { checkpointIntervalMs: 200, idleCheckpointTimeoutMs: 300 },
    });
    try {
      const carol = await onboard(other.sb, other.admin);
      await sleep(250); // the cache has taken the ledger end
      const end = other.sb.state.log.end;
      const ws = new WebSocket(`${other.sb.url.replace(/^http/, 'ws')}/v2/updates`, [
        `jwt.token.${carol.token}`,
        'daml.ws.auth',
      ]);
      const first = new Promise<Frame>((resolve) =>
        ws.once('message', (d) => resolve(JSON.parse(String(d)))),
      );
      ws.once('open', () =>
        ws.send(JSON.stringify({ beginExclusive: end, updateFormat: transactionsOf(carol.partyId) })),
      );
      const frame = await first;
      expect(frame.update.OffsetCheckpoint.value.offset).toBe(end);
      expectFrame(frame, JsGetUpdatesResponse, 'JsGetUpdatesResponse');
      ws.close();
    } finally {
      await other.sb.close();
    }
  });

  test('pekko-http’s idle-timeout drops a quiet socket (no keep-alive pings); traffic keeps it', async () => {
    const { DEFAULT_OPTIONS } = await import('../src/routes/http.ts');
    expect(DEFAULT_OPTIONS.idleTimeoutMs).toBe(60_000);
    const other = await sandboxWithAdmin({ options: { idleTimeoutMs: 400 } });
    try {
      const erin = await onboard(other.sb, other.admin);
      const url = `${other.sb.url.replace(/^http/, 'ws')}/v2/commands/completions`;
      const request = JSON.stringify({ userId: erin.userId, parties: [erin.partyId], beginExclusive: 0 });
      const connect = async () => {
        const ws = new WebSocket(url, [`jwt.token.${erin.token}`, 'daml.ws.auth']);
        const closed = new Promise<number>((r) => ws.once('close', r));
        await new Promise((r) => ws.once('open', r));
        ws.send(request);
        return { ws, closed };
      };
      const quiet = await connect();
      const started = Date.now();
      expect(await quiet.closed).toBe(1006); // no close frame: the connection is dropped
      expect(Date.now() - started).toBeGreaterThanOrEqual(350);
      const busy = await connect();
      for (let i = 0; i < 4; i++) {
        await sleep(200);
        busy.ws.ping();
      }
      expect(busy.ws.readyState).toBe(WebSocket.OPEN);
      busy.ws.close();
      await busy.closed;
    } finally {
      await other.sb.close();
    }
  });

  test('later messages are ignored: the first one is the request (prepareSingleWsStream: take(1))', async () => {
    const body = {
      beginExclusive: 0,
      endInclusive: sb.state.log.end,
      updateFormat: transactionsOf(alice.partyId),
    };
    const s = await open('/v2/updates', body, { token: alice.token });
    s.ws.send('not even json');
    await s.closed;
    const list = await call(sb.url, 'POST', '/v2/updates', body, alice.token);
    expect(s.frames).toEqual(list.json);
  });
});

describe('authentication (Endpoints.baseEndpoint, validateJwtToken, AuthServiceJWT)', () => {
  const request = () => ({
    beginExclusive: 0,
    endInclusive: sb.state.log.end,
    updateFormat: transactionsOf(alice.partyId),
  });

  test('the upgrade answers daml.ws.auth (the response header wsSubprotocol); a client that offered none refuses', async () => {
    const s = await open('/v2/updates', request(), { token: alice.token });
    expect(s.ws.protocol).toBe('daml.ws.auth');
    await s.closed;
    // "We send wsSubprotocol header, but we do not enforce it": the server answers it whatever was offered.
    const bare = new WebSocket(wsUrl('/v2/updates'), { headers: { authorization: `Bearer ${alice.token}` } });
    const error = await new Promise<Error>((resolve) => bare.once('error', resolve));
    expect(error.message).toBe('Server sent a subprotocol but none was requested');
  });

  test('the token travels as jwt.token.<token>, listed first, or as a bearer header', async () => {
    const list = await call(sb.url, 'POST', '/v2/updates', request(), alice.token);
    const viaHeader = await whole('/v2/updates', request(), {
      protocols: ['daml.ws.auth'],
      headers: { authorization: `Bearer ${alice.token}` },
    });
    expect(viaHeader.frames).toEqual(list.json);
    expect((await whole('/v2/updates', request(), { token: alice.token })).frames).toEqual(list.json);
    // pekko-http renders the parsed header back as "daml.ws.auth, jwt.token.…"; tapir splits on "," without
    // trimming, so " jwt.token.…" is not a token: unauthenticated.
    const second = await whole('/v2/updates', request(), {
      protocols: ['daml.ws.auth', `jwt.token.${alice.token}`],
    });
    expect(second.frames).toHaveLength(1);
    expectRedactedFrame(second.frames[0], 16);
  });

  test('a missing or invalid token: upgraded, then the ledger service’s redacted UNAUTHENTICATED frame, as the POST body', async () => {
    // AuthServiceJWT.decodeToken: no or unreadable token → ClaimSet.Unauthenticated, refused by the gRPC service.
    const forged = `${alice.token.slice(0, -4)}AAAA`;
    for (const token of [undefined, forged, '']) {
      const post = await call(sb.url, 'POST', '/v2/updates', request(), undefined, {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      });
      expect(post.status).toBe(401);
      const protocols = [...(token === undefined ? [] : [`jwt.token.${token}`]), 'daml.ws.auth'];
      const { frames, code } = await whole('/v2/updates', request(), { protocols });
      expect([frames.length, code]).toEqual([1, 1000]);
      expectRedactedFrame(frames[0], 16);
      sameError(frames[0], post.json);
    }
  });

  test('a token of an unknown user is the POST form’s 403 before any upgrade (UserBasedClaimResolver)', async () => {
    const user = `ghost-${Date.now()}`;
    const ghost = await sb.mintToken(user);
    expect((await call(sb.url, 'DELETE', `/v2/users/${user}`, undefined, admin)).status).toBe(200);
    const post = await call(sb.url, 'POST', '/v2/updates', request(), ghost);
    expect(post.status).toBe(403);
    const refused = await refusedUpgrade('/v2/updates', [`jwt.token.${ghost}`, 'daml.ws.auth']);
    expect([refused.status, refused.body.code]).toEqual([403, post.json.code]);
    expect(refused.type).toContain('application/json');
    sameError(refused.body, post.json);
  });

  test('rights are the ledger service’s: reading another party is a redacted PERMISSION_DENIED frame', async () => {
    const body = { beginExclusive: 0, updateFormat: transactionsOf(alice.partyId) };
    const post = await call(sb.url, 'POST', '/v2/updates?stream_idle_timeout_ms=50', body, bob.token);
    expect(post.status).toBe(403);
    const { frames, code } = await whole('/v2/updates', body, { token: bob.token });
    expect([frames.length, code]).toEqual([1, 1000]);
    expectRedactedFrame(frames[0], 7);
    sameError(frames[0], post.json);
  });
});

describe('bad request messages (PekkoWebSockets.pipeToBody, Endpoints.handleErrorInSocket)', () => {
  test('a message the decoder cannot read: one LEDGER_API_INTERNAL_ERROR frame (WebSocketFrameDecodeFailure)', async () => {
    for (const message of ['{"beginExclusive": ', '{"beginExclusive": "soon", "updateFormat": {}}']) {
      const { frames, code } = await whole('/v2/updates', message, { token: alice.token });
      expect([frames.length, code]).toEqual([1, 1000]);
      expectErrorFrame(frames[0], 'LEDGER_API_INTERNAL_ERROR');
      expect(frames[0].errorCategory).toBe(4);
      expect(frames[0].cause).toMatch(/^Cannot decode frame: Text\(/);
      expect(frames[0].context.throwableO).toMatch(
        /^Some\(sttp\.tapir\.model\.WebSocketFrameDecodeFailure: /,
      );
    }
  });

  const refusals = [
    {
      why: 'both updateFormat and filter (JsUpdateService.toGetUpdatesRequest)',
      path: '/v2/updates',
      body: () => ({
        beginExclusive: 0,
        ...legacyFilter(alice.partyId),
        updateFormat: transactionsOf(alice.partyId),
      }),
      code: 'INVALID_ARGUMENT',
    },
    {
      why: 'a begin past the ledger end (UpdateServiceRequestValidator)',
      path: '/v2/updates/flats',
      body: () => ({ beginExclusive: sb.state.log.end + 5, updateFormat: transactionsOf(alice.partyId) }),
      code: 'OFFSET_AFTER_LEDGER_END',
    },
    {
      why: 'descending without an end',
      path: '/v2/updates',
      body: () => ({ beginExclusive: 0, descendingOrder: true, updateFormat: transactionsOf(alice.partyId) }),
      code: 'DESCENDING_ORDER_MISSING_END',
    },
    {
      why: 'an unknown package name (IndexServiceImpl.checkUnknownIdentifiers)',
      path: '/v2/updates',
      body: () => ({
        beginExclusive: 0,
        updateFormat: {
          includeTransactions: {
            eventFormat: {
              filtersByParty: {
                [alice.partyId]: {
                  cumulative: [
                    {
                      identifierFilter: {
                        TemplateFilter: {
                          value: { templateId: '#nope:A:B', includeCreatedEventBlob: false },
                        },
                      },
                    },
                  ],
                },
              },
            },
            transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
          },
        },
      }),
      code: 'PACKAGE_NAMES_NOT_FOUND',
    },
    {
      why: 'a tree request with an updateFormat',
      path: '/v2/updates/trees',
      body: () => ({ beginExclusive: 0, updateFormat: transactionsOf(alice.partyId) }),
      code: 'INVALID_ARGUMENT',
    },
    {
      why: 'completions without parties (CompletionServiceRequestValidator)',
      path: '/v2/commands/completions',
      body: () => ({ userId: alice.userId, parties: [], beginExclusive: 0 }),
      code: 'MISSING_FIELD',
    },
  ];
  test.each(refusals)(
    '$why: the POST form’s error as one frame, then closed',
    async ({ path, body, code }) => {
      const post = await call(sb.url, 'POST', `${path}?stream_idle_timeout_ms=50`, body(), alice.token);
      expect(post.json?.code, post.text).toBe(code);
      const ws = await whole(path, body(), { token: alice.token });
      expect([ws.frames.length, ws.code]).toEqual([1, 1000]);
      expectErrorFrame(ws.frames[0], code);
      sameError(ws.frames[0], post.json);
    },
  );
});

describe('the HTTP side of the websocket routes', () => {
  test('every channel of the asyncapi is served, but active-contracts and command-completions (not served)', async () => {
    const NOT_SERVED = ['/v2/state/active-contracts', '/v2/commands/command-completions'];
    const channels = Object.keys(asyncSpec().raw.channels as object);
    expect(channels).toEqual(expect.arrayContaining(NOT_SERVED));
    for (const channel of channels) {
      if (NOT_SERVED.includes(channel)) {
        const refused = await refusedUpgrade(channel, ['daml.ws.auth'], {
          authorization: `Bearer ${alice.token}`,
        });
        expect([refused.status, refused.text], channel).toEqual([
          404,
          'The requested resource could not be found.',
        ]);
      } else {
        const s = await open(channel, {}, { token: alice.token });
        expect(s.ws.protocol, channel).toBe('daml.ws.auth');
        await s.closed;
        expect(s.frames.length, channel).toBe(1); // {} is refused in one frame
      }
    }
  });

  test('a plain GET is pekko-http’s 400 "Expected WebSocket Upgrade request" (ExpectedWebSocketRequestRejection)', async () => {
    for (const path of [
      '/v2/updates',
      '/v2/updates/flats',
      '/v2/updates/trees',
      '/v2/commands/completions',
    ]) {
      const res = await call(sb.url, 'GET', path, undefined, alice.token);
      expect([res.status, res.text, res.contentType], path).toEqual([
        400,
        'Expected WebSocket Upgrade request',
        'text/plain; charset=UTF-8',
      ]);
    }
  });

  test('tapir skips empty path segments: //v2/updates is /v2/updates (as the wallet SDK asks for it)', async () => {
    const body = {
      beginExclusive: 0,
      endInclusive: sb.state.log.end,
      updateFormat: transactionsOf(alice.partyId),
    };
    const list = await call(sb.url, 'POST', '/v2/updates', body, alice.token);
    expect((await whole('//v2/updates', body, { token: alice.token })).frames).toEqual(list.json);
  });

  test('closing the sandbox ends open streams', async () => {
    const other = await sandboxWithAdmin();
    const dave = await onboard(other.sb, other.admin);
    const ws = new WebSocket(`${other.sb.url.replace(/^http/, 'ws')}/v2/commands/completions`, [
      `jwt.token.${dave.token}`,
      'daml.ws.auth',
    ]);
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ userId: dave.userId, parties: [dave.partyId], beginExclusive: 0 }));
    const closed = new Promise((r) => ws.once('close', r));
    await other.sb.close();
    await closed;
  });
});
