// Helpers that drive the official wallet SDK, unchanged, against a ledger URL (see SDK-CALLS.md).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashPreparedTransaction as visualizerHash } from '@canton-network/core-tx-visualizer';
import {
  CustomLogAdapter,
  type LogContext,
  type LogLevel,
  SDK,
  type SDKContext,
  SDKPlugin,
  type TokenProviderConfig,
} from '@canton-network/wallet-sdk';
import { decodePreparedTransactionBase64, hashPreparedTransaction } from '@quill/canton/transaction';

/** SDK log lines, kept for failure messages instead of flooding the test output. */
export const sdkLog: string[] = [];
const quiet = () =>
  new CustomLogAdapter((level: LogLevel, ctx: LogContext, message?: string) => {
    if (level === 'error' || level === 'warn')
      sdkLog.push(`${level} ${message ?? ''} ${ctx.namespace ?? ''}`);
  });

/** HS256 tokens the SDK mints itself, as its README shows. */
export function selfSigned(userId: string, secret: string): TokenProviderConfig {
  return {
    method: 'self_signed',
    issuer: 'quill-interop',
    credentials: { clientId: userId, clientSecret: secret, audience: undefined, scope: 'daml_ledger_api' },
  };
}

export async function connect(url: string, userId: string, secret: string) {
  const auth = selfSigned(userId, secret);
  const sdk = await SDK.create({ auth, ledgerClientUrl: url, logAdapter: quiet() });
  return { sdk, auth };
}

type LedgerRequest = Parameters<SDKContext['ledgerProvider']['request']>[0];

/** The SDK's own plugin hook: gives raw calls through the SDK's transport (its token, its wire habits). */
export class RawLedger extends SDKPlugin {
  constructor(ctx: SDKContext) {
    super('raw', ctx);
  }
  post(resource: string, body: unknown): Promise<unknown> {
    const args = { method: 'ledgerApi', params: { resource, requestMethod: 'post', body } };
    return this.ctx.ledgerProvider.request(args as unknown as LedgerRequest);
  }
}

const offline = SDK.createOffline({ logAdapter: quiet() });

/** The prepared transaction hashed by both SDK hashers and by Quill's own. All base64. */
export async function hashes(preparedTransaction: string) {
  const quill = hashPreparedTransaction(
    decodePreparedTransactionBase64(preparedTransaction),
    'HASHING_SCHEME_VERSION_V2',
  );
  return {
    sdk: (await offline.utils.hash.preparedTransaction(preparedTransaction)).toBase64(),
    visualizer: await visualizerHash(preparedTransaction, 'base64'),
    quill: Buffer.from(quill).toString('base64'),
  };
}

/** Runs one step; a failure names the step and shows what the ledger answered (JsCantonError objects). */
export async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const detail = err instanceof Error ? err.message : JSON.stringify(err);
    const logs = sdkLog.slice(-5).join(' | ');
    throw new Error(`SDK step "${name}" failed: ${detail}${logs ? ` (SDK log: ${logs})` : ''}`);
  }
}

interface RawEvent {
  CreatedEvent?: { contractId: string; templateId: string; createArgument?: Record<string, unknown> };
}

/** Contract ids created by `updateId` of a template entity (e.g. `Quill.Coin:Holding`), optionally for one owner. */
export async function createdBy(
  raw: RawLedger,
  party: string,
  updateId: string,
  entity: string,
  owner?: string,
) {
  const wildcard = { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } };
  const res = (await step(`transaction-by-id ${updateId}`, () =>
    raw.post('/v2/updates/transaction-by-id', {
      updateId,
      transactionFormat: {
        eventFormat: { filtersByParty: { [party]: { cumulative: [wildcard] } }, verbose: true },
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
      },
    }),
  )) as { transaction: { events: RawEvent[] } };
  return res.transaction.events
    .flatMap((e) => (e.CreatedEvent ? [e.CreatedEvent] : []))
    .filter((c) => c.templateId.endsWith(`:${entity}`))
    .filter((c) => owner === undefined || c.createArgument?.['owner'] === owner)
    .map((c) => c.contractId);
}

/** One HTTP request the SDK sent: method, path with its query, headers, JSON body (or text, or undefined). */
export interface SentRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
]);

/**
 * A pass-through HTTP proxy in front of `target` that records every request (SDK-CALLS.md's "recording the SDK"):
 * headers and body are forwarded byte for byte (a POST without `Content-Type` stays without one), the answer comes
 * back as the target gave it. Point the SDK's ledger and registry URLs at `url`; `since(n)` lists what was sent after
 * the n-th request as `METHOD /path`.
 */
export async function recordingProxy(target: string) {
  const sent: SentRequest[] = [];
  const server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      const text = raw.toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      sent.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && k !== 'host' && !HOP_BY_HOP.has(k)) headers.set(k, v);
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const up = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        body: hasBody ? new Uint8Array(raw) : undefined,
      });
      const out = Buffer.from(await up.arrayBuffer());
      const back: Record<string, string> = {};
      up.headers.forEach((v, k) => {
        if (!HOP_BY_HOP.has(k)) back[k] = v;
      });
      res.writeHead(up.status, back).end(out);
    } catch (e) {
      res.writeHead(502).end(String(e));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    sent,
    /** `METHOD /path` of the requests after the first `from`. */
    since: (from: number) => sent.slice(from).map((r) => `${r.method} ${r.path}`),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
