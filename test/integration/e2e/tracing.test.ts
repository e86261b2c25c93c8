// Tracing (issue 31 item 5): a whole wallet on the embedded sandbox, its spans exported over OTLP/HTTP (JSON) to a
// collector in this process. With tracing off nothing is exported and no traceparent reaches the ledger; on, the
// caller's trace runs accept → policy/sign, the queued job's attempt → the ledger's execute, and the sandbox
// receives the execute span's traceparent. Off runs first: the SDK, once registered, stays for this file.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, trace } from '@opentelemetry/api';
import type { Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTracing, type Tracing, tracingWanted } from '../../../src/server/tracing.ts';
import { noteCommand, prepareOn, startFullWallet, startLedger, walletConfig } from '../../support/wallet.ts';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

let collector: Server;
const spans: OtlpSpan[] = [];
const serviceNames: string[] = [];
let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startFullWallet>>;
let party: string;
let tracing: Tracing | undefined;

const hex = (bytes: number) =>
  Array.from({ length: bytes }, () =>
    Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('');

/** POST /wallet/v1/submissions?wait=20 with extra headers. */
async function submit(headers: Record<string, string> = {}) {
  const body = await prepareOn(w.client, party, noteCommand(party));
  const res = await fetch(`${w.wallet.url}/wallet/v1/submissions?wait=20`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.admin}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const rec = (await res.json()) as {
    id: string;
    status: string;
    commandId: string;
    updateId: string;
    attempts: { submissionId: string }[];
  };
  expect(rec.status).toBe('committed');
  return rec;
}

function received(submissionId: string) {
  return sandbox.state.receivedTraceparents.find((r) => r.submissionId === submissionId);
}

/** The spans of a trace, once every name of `names` is there (as many times as it is named), or after 10 s. */
async function spansOf(traceId: string, names: string[], timeoutMs = 10_000): Promise<OtlpSpan[]> {
  const until = Date.now() + timeoutMs;
  const wanted = (mine: OtlpSpan[]) =>
    names.every((n) => mine.filter((s) => s.name === n).length >= names.filter((m) => m === n).length);
  for (;;) {
    const mine = spans.filter((s) => s.traceId === traceId);
    if (wanted(mine) || Date.now() > until) return mine;
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.includes('json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: {
            resource: { attributes: { key: string; value: { stringValue?: string } }[] };
            scopeSpans: { spans: OtlpSpan[] }[];
          }[];
        };
        for (const rs of body.resourceSpans) {
          const name = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
          if (name) serviceNames.push(name);
          for (const ss of rs.scopeSpans) spans.push(...ss.spans);
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  sandbox = await startLedger();
  w = await startFullWallet(sandbox, walletConfig(inject('redisUrl')));
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  const onboarded = await w.call('POST', '/wallet/v1/parties', {
    keyFingerprint: key.json.fingerprint,
    partyHint: 'traced',
  });
  expect(onboarded.status).toBe(201);
  party = onboarded.json.partyId as string;
});

afterAll(async () => {
  await w?.wallet.close();
  await sandbox?.close();
  await tracing?.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
  await new Promise((r) => collector.close(r));
  for (const k of Object.keys(process.env)) if (k.startsWith('OTEL_')) delete process.env[k];
});

describe('the OTEL_* variables', () => {
  it('turn tracing on only when asked', () => {
    expect(tracingWanted({}).on).toBe(false);
    expect(tracingWanted({ OTEL_SERVICE_NAME: 'x' }).on).toBe(false);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp' }).on).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).on).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }).on).toBe(true);
    expect(
      tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }).on,
    ).toBe(false);
    expect(
      tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }).on,
    ).toBe(false);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'zipkin' })).toMatchObject({ on: false, why: /zipkin/ });
  });
});

describe('tracing', () => {
  it('off (the default): nothing exported, no traceparent sent to the ledger, not even the caller’s', async () => {
    expect(startTracing({}).enabled).toBe(false);
    const plain = await submit();
    const traced = await submit({ traceparent: `00-${hex(16)}-${hex(8)}-01` });
    expect(received(plain.attempts[0]!.submissionId)).toEqual({
      submissionId: plain.attempts[0]!.submissionId,
      traceparent: null,
      tracestate: null,
    });
    expect(received(traced.attempts[0]!.submissionId)?.traceparent).toBeNull();
    await new Promise((r) => setTimeout(r, 300));
    expect(spans).toEqual([]);
  });

  it('on: the caller’s trace runs through accept, the queue and the attempt into the execute request', async () => {
    const port = (collector.address() as AddressInfo).port;
    process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `http://127.0.0.1:${port}/v1/traces`;
    process.env.OTEL_SERVICE_NAME = 'quill-tracing-test';
    process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
    tracing = startTracing(process.env);
    expect(tracing.enabled).toBe(true);

    const traceId = hex(16);
    const callerSpan = hex(8);
    const rec = await submit({ traceparent: `00-${traceId}-${callerSpan}-01`, tracestate: 'caller=1' });
    const mine = await spansOf(traceId, [
      'quill.accept',
      'quill.policy',
      'quill.sign',
      'quill.attempt',
      'ledger.execute',
    ]);
    const one = (name: string) => {
      const found = mine.filter((s) => s.name === name);
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    const accept = one('quill.accept');
    expect(accept.parentSpanId).toBe(callerSpan);
    expect(one('quill.policy').parentSpanId).toBe(accept.spanId);
    expect(one('quill.sign').parentSpanId).toBe(accept.spanId);
    // The job carries the accept span's context to the worker.
    const attempt = one('quill.attempt');
    expect(attempt.parentSpanId).toBe(accept.spanId);
    const execute = one('ledger.execute');
    expect(execute.parentSpanId).toBe(attempt.spanId);
    expect(execute.kind).toBe(3); // SPAN_KIND_CLIENT
    const idAttr = accept.attributes?.find((a) => a.key === 'quill.submission.id')?.value.stringValue;
    expect(idAttr).toBe(rec.id);
    expect(serviceNames).toContain('quill-tracing-test');

    // What the participant received, and keeps as the transaction's traceContext.
    const submissionId = rec.attempts[0]!.submissionId;
    expect(received(submissionId)).toMatchObject({
      traceparent: `00-${traceId}-${execute.spanId}-01`,
      tracestate: 'caller=1',
    });
    const tx = sandbox.state.log.at(sandbox.state.log.offsetOf(rec.updateId) ?? -1);
    expect(tx && 'traceparent' in tx ? tx.traceparent : undefined).toBe(`00-${traceId}-${execute.spanId}-01`);
  });

  it('on: an answer lost after the commit gives a second attempt and a reconcile span, in the same trace', async () => {
    sandbox.faults.configure({
      rules: [
        {
          kind: 'timeoutAfterCommit',
          endpoint: '/v2/interactive-submission/executeAndWaitForTransaction',
          answer: '503',
          times: 1,
        },
      ],
    });
    const traceId = hex(16);
    const rec = await submit({ traceparent: `00-${traceId}-${hex(8)}-01` });
    sandbox.faults.configure({});
    expect(rec.attempts.length).toBeGreaterThanOrEqual(2);
    const mine = await spansOf(traceId, ['quill.accept', 'quill.reconcile']);
    const accept = mine.find((s) => s.name === 'quill.accept')!;
    const attempts = mine.filter((s) => s.name === 'quill.attempt');
    expect(attempts.length).toBe(rec.attempts.length);
    for (const a of attempts) expect(a.parentSpanId).toBe(accept.spanId);
    const executes = mine.filter((s) => s.name === 'ledger.execute');
    expect(executes.map((e) => e.parentSpanId).sort()).toEqual(attempts.map((a) => a.spanId).sort());
    const reconcile = mine.find((s) => s.name === 'quill.reconcile')!;
    expect(reconcile.parentSpanId).toBe(accept.spanId);
    expect(reconcile.attributes?.find((a) => a.key === 'quill.reconcile.found')?.value.stringValue).toBe(
      'ours',
    );
    // Every attempt's execute request carried its own span's traceparent, all in the caller's trace.
    for (const [i, a] of rec.attempts.entries()) {
      expect(received(a.submissionId)?.traceparent?.split('-')[1], `attempt ${i}`).toBe(traceId);
    }
    expect(sandbox.state.commits.get(rec.commandId)).toBe(1);
  });

  it('on: each item of a batch is accepted in the caller’s trace', async () => {
    const traceId = hex(16);
    const callerSpan = hex(8);
    const bodies = [
      await prepareOn(w.client, party, noteCommand(party)),
      await prepareOn(w.client, party, noteCommand(party)),
    ];
    const res = await fetch(`${w.wallet.url}/wallet/v1/submissions/batch`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${w.admin}`,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${callerSpan}-01`,
      },
      body: JSON.stringify({ submissions: bodies }),
    });
    const { items } = (await res.json()) as { items: { status: number; submission?: { id: string } }[] };
    expect(items.map((i) => i.status)).toEqual([202, 202]);
    const mine = await spansOf(traceId, ['quill.accept', 'quill.accept']);
    const accepts = mine.filter((s) => s.name === 'quill.accept');
    expect(accepts.map((a) => a.parentSpanId)).toEqual([callerSpan, callerSpan]);
    const ids = accepts.map(
      (a) => a.attributes?.find((x) => x.key === 'quill.submission.id')?.value.stringValue,
    );
    expect(ids.sort()).toEqual(items.map((i) => i.submission?.id).sort());
  });

  it('on, without a caller traceparent: a new trace from accept to the execute request', async () => {
    const rec = await submit();
    const sent = received(rec.attempts[0]!.submissionId)?.traceparent;
    expect(sent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traceId = sent!.split('-')[1]!;
    const mine = await spansOf(traceId, ['quill.accept', 'quill.attempt', 'ledger.execute']);
    const accept = mine.find((s) => s.name === 'quill.accept');
    expect(accept?.parentSpanId ?? '').toBe('');
    expect(mine.find((s) => s.name === 'ledger.execute')?.spanId).toBe(sent!.split('-')[2]);
  });
});
