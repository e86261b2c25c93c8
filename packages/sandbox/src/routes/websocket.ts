/**
 * The websocket forms of the streams (asyncapi 3.5): `GET /v2/updates`, `/v2/updates/flats`, `/v2/updates/trees`
 * and `/v2/commands/completions`, served as canton 3.5's `Endpoints.websocket` serves them (tapir 1.11 on
 * pekko-http):
 *
 * - The token is the `Authorization: Bearer` header's, else the first `jwt.token.<token>` entry of the
 *   `Sec-WebSocket-Protocol` header as tapir reads it (`Endpoints.baseEndpoint`: the value split on `,`, no
 *   trimming). pekko-http parses that header into its protocols and renders them back joined with `", "`, so only
 *   a token listed first is found: `jwt.token.<token>, daml.ws.auth`, as the participant's own clients send it.
 * - The upgrade answers `Sec-WebSocket-Protocol: daml.ws.auth` whatever the client offered (`.out(header(
 *   wsSubprotocol))`, "we do not enforce it"); a client that did not offer it refuses the handshake itself.
 * - Authentication runs before the upgrade (`validateJwtToken`): a token the claim resolver refuses (unknown or
 *   deactivated user) is the POST form's HTTP answer, no upgrade. A missing or unreadable token is an
 *   unauthenticated claim set there, refused only by the ledger service: an UNAUTHENTICATED frame after the
 *   request message.
 * - The first message is the request (`prepareSingleWsStream`: `take(1)`), the POST form's body; later ones are
 *   ignored. One that does not decode fails tapir's `pipeToBody`, recovered as LEDGER_API_INTERNAL_ERROR.
 *   Otherwise the request goes through the POST form's checks (the declaration's rule, then the stream's own).
 * - Each element is one text frame, the list form's element; an error is one JsCantonError frame
 *   (`handleErrorInSocket`) and ends the stream. When the stream ends (a bounded range after its last element, or
 *   after an error frame) pekko-http closes with 1000 (`FrameOutHandler`: UserHandlerCompleted); an open-ended
 *   stream never ends (no limit, no idle timeout) and carries checkpoints as the participant's stream does.
 * - No keep-alive pings (tapir's pekko interpreter has none; `periodic-keep-alive-max-idle = infinite`), and
 *   pekko-http's `idle-timeout` (60 s) applies: a socket without traffic either way that long is dropped.
 * - A plain `GET` (no upgrade) passes authentication and is pekko-http's `400 Expected WebSocket Upgrade request`.
 * - tapir matches path segments and skips empty ones: `//v2/updates` is `/v2/updates` (the SDK sends that).
 */
import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { Authenticator, Caller } from '../auth.ts';
import { BodyDecodeError, err, SandboxError, violationError } from '../errors.ts';
import { decodeJson, type Services } from './http.ts';
import { followUpdates, type OpenStream, type StreamForm, type StreamForms } from './stream.ts';

export const WS_SUBPROTOCOL = 'daml.ws.auth';
const TOKEN_PREFIX = 'jwt.token.';
/** RFC 7230 `token`, what pekko-http's `sec-websocket-protocol` rule accepts for each protocol. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** pekko-http's answer to a plain request on a websocket route (`RejectionHandler.default`). */
export const EXPECTED_UPGRADE_TEXT = 'Expected WebSocket Upgrade request';

/** A request path as tapir matches it: its segments, empty ones skipped. */
export function streamPath(url: string): string {
  // A request target (`//v2/updates?x`) or an absolute URL; not parsed as a URL reference, `//v2` is no host.
  const target = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(.*)$/i.exec(url)?.[1] ?? url;
  const path = target.split(/[?#]/, 1)[0] ?? '';
  return `/${path.split('/').filter(Boolean).join('/')}`;
}

/** The token a websocket request carries (`Endpoints.baseEndpoint`): bearer header first, then the subprotocols. */
export function wsToken(headers: IncomingHttpHeaders): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
  if (bearer) return bearer;
  const header = headers['sec-websocket-protocol'];
  if (header === undefined) return undefined;
  const protocols = header.split(',').map((p) => p.trim());
  // pekko-http keeps a header it cannot parse as it came; a parsed one is rendered back with ", ".
  const value = protocols.every((p) => TOKEN.test(p)) ? protocols.join(', ') : header;
  return value
    .split(',')
    .filter((p) => p.startsWith(TOKEN_PREFIX))
    .map((p) => p.slice(TOKEN_PREFIX.length))[0];
}

/** Who calls: a caller, or the UNAUTHENTICATED error the ledger service will answer. Throws for an HTTP answer. */
export type WsCaller = { caller: Caller } | { refused: SandboxError };

export async function wsCaller(auth: Authenticator, headers: IncomingHttpHeaders): Promise<WsCaller> {
  const token = wsToken(headers);
  try {
    return { caller: await auth.authenticate(token === undefined ? undefined : `Bearer ${token}`) };
  } catch (e) {
    if (e instanceof SandboxError && e.code === 'UNAUTHENTICATED') return { refused: e };
    throw e;
  }
}

/** The JsCantonError frame of a failure (`handleErrorInSocket`). */
function errorFrame(e: unknown): unknown {
  return (e instanceof SandboxError ? e : err.internal(e instanceof Error ? e.message : String(e))).body();
}

/** Writes a whole HTTP answer on a socket that was not upgraded, then ends it. */
async function answer(socket: Duplex, res: Response): Promise<void> {
  const body = Buffer.from(await res.arrayBuffer());
  const lines = [`HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ''}`];
  res.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'connection') lines.push(`${name}: ${value}`);
  });
  lines.push(`content-length: ${body.length}`, 'connection: close', '', '');
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n')), body]));
}

function errorAnswer(e: unknown): Response {
  const error = e instanceof SandboxError ? e : err.internal();
  return new Response(JSON.stringify(error.body()), {
    status: error.status,
    headers: { 'content-type': 'application/json' },
  });
}

export interface WebSockets {
  /** Ends every open websocket (the sandbox is closing). */
  close(): void;
}

/**
 * Serves the websocket forms of `streams` on `server`'s upgrade requests. Any other upgrade request is answered by
 * `fetch` as a plain request (pekko-http ignores the upgrade headers of a route that is not a websocket).
 */
export function serveWebSockets(
  server: Server,
  services: Services,
  streams: StreamForms,
  fetch: (req: Request, env: { incoming: IncomingMessage }) => Response | Promise<Response>,
): WebSockets {
  // Choose no subprotocol and answer daml.ws.auth whatever was offered, as tapir's response header does.
  const wss = new WebSocketServer({ noServer: true, handleProtocols: () => false });
  wss.on('headers', (headers) => headers.push(`Sec-WebSocket-Protocol: ${WS_SUBPROTOCOL}`));

  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const form = req.method === 'GET' ? streams.get(streamPath(req.url ?? '/')) : undefined;
    if (!form) {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'sandbox'}`);
      return answer(
        socket,
        await fetch(new Request(url, { method: req.method ?? 'GET', headers }), { incoming: req }),
      );
    }
    let who: WsCaller;
    try {
      who = await wsCaller(services.auth, req.headers);
    } catch (e) {
      return answer(socket, errorAnswer(e));
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      // pekko-http's idle-timeout drops a websocket without traffic either way (ws cleared the socket's timeout).
      (socket as Socket).setTimeout(services.options.idleTimeoutMs, () => socket.destroy());
      session(ws, form, who);
    });
  };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    upgrade(req, socket, head).catch(() => socket.destroy());
  });

  function session(ws: WebSocket, form: StreamForm, who: WsCaller): void {
    const stop = new AbortController();
    ws.on('close', () => stop.abort());
    ws.on('error', () => stop.abort());
    const send = (frame: unknown) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
    };
    const end = () => {
      if (ws.readyState === ws.OPEN) ws.close(1000);
    };
    ws.once('message', (data: RawData, isBinary: boolean) => {
      let opened: OpenStream;
      try {
        opened = open(form, who, data, isBinary);
      } catch (e) {
        send(errorFrame(e));
        return end();
      }
      followUpdates(services, opened.render, opened.range, (u) => send(opened.wrap(u)), stop.signal).then(
        end,
        (e: unknown) => {
          send(errorFrame(e));
          end();
        },
      );
    });
  }

  return {
    close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}

/** The request message decoded and checked as the POST form checks its body; throws the error to send. */
function open(form: StreamForm, who: WsCaller, data: RawData, isBinary: boolean): OpenStream {
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
  if (isBinary) {
    const frame = `Binary(${bytes.length} bytes,true,None)`;
    throw err.frameDecode(frame, `Error(${frame},sttp.tapir.model.UnsupportedWebSocketFrameException)`);
  }
  const text = bytes.toString('utf8');
  let body: unknown;
  try {
    body = decodeJson(text, form.endpoint.body);
  } catch (e) {
    if (!(e instanceof BodyDecodeError)) throw e;
    throw err.frameDecode(`Text(${text},true,None)`, `Error(${text},${e.message})`);
  }
  if ('refused' in who) throw who.refused;
  form.precheck?.(body);
  const violation = form.endpoint.rule?.(body, {}, {});
  if (violation) throw violationError(violation);
  return form.open(who.caller, body);
}
