// `quill serve --sandbox` as a process with the OTEL_* variables: the SDK starts with it, a caller's trace reaches
// the collector (an OTLP/HTTP JSON receiver in this test) from accept to the execute request, and the ledger's
// transaction carries that trace in its traceContext. The spans still buffered are exported at SIGTERM.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { LedgerClient } from '@quill/canton/ledger';
import { describe, expect, inject, it } from 'vitest';
import { issueToken } from '../../../src/auth/index.ts';
import { freePort } from '../../support/redis-global-setup.ts';
import { tempDir } from '../../support/tmp.ts';
import { noteCommand, prepareOn } from '../../support/wallet.ts';

const SECRET = 'tracing-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

interface Exported {
  service?: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

describe('quill serve with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports the submission’s spans in the caller’s trace and the ledger keeps it', {
    timeout: 150_000,
  }, async () => {
    const exported: Exported[] = [];
    const collector = createServer((req, res) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += d.toString('utf8')));
      req.on('end', () => {
        if (req.url === '/v1/traces') {
          const body = JSON.parse(text) as {
            resourceSpans: {
              resource: { attributes: { key: string; value: { stringValue?: string } }[] };
              scopeSpans: { spans: Exported[] }[];
            }[];
          };
          for (const rs of body.resourceSpans) {
            const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
            for (const ss of rs.scopeSpans) for (const s of ss.spans) exported.push({ ...s, service });
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const [port, sandboxPort, scanPort] = [await freePort(), await freePort(), await freePort()];
    const server = spawn(process.execPath, [resolve('bin/quill.js'), 'serve', '--sandbox'], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        HOST: '127.0.0.1',
        SANDBOX_PORT: String(sandboxPort),
        SANDBOX_SCAN_PORT: String(scanPort),
        REDIS_URL: inject('redisUrl'),
        REDIS_PREFIX: `tracing-${port}`,
        AUTH_JWT_SECRET: SECRET,
        KEYSTORE_PASSPHRASE: 'tracing passphrase',
        KEYSTORE_SCRYPT_N: '1024',
        KEYS_DIR: tempDir('quill-tracing-keys-'),
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
        // Longer than the test: only the export at shutdown sends them.
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let logs = '';
    server.stderr?.on('data', (d: Buffer) => (logs += d.toString('utf8')));
    const exited = new Promise<number | null>((r) => server.on('exit', (code) => r(code)));
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    let rec: { id: string; status: string; updateId: string; party: string } | undefined;
    let ledgerTrace: unknown;
    try {
      const base = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 75_000; // tsx compiles the CLI at start: slow on a loaded machine
      while (
        !(await fetch(`${base}/readyz`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        if (server.exitCode !== null || Date.now() > deadline) throw new Error(`never ready:\n${logs}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const admin = await issueToken({ secret: SECRET, role: 'admin', ttlSeconds: 600, subject: 'tracing' });
      const call = async (path: string, body?: unknown, headers: Record<string, string> = {}) =>
        (await fetch(`${base}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }).then((r) => r.json())) as Record<string, unknown>;
      const key = await call('/wallet/v1/keys', { algorithm: 'ed25519' });
      const party = (
        await call('/wallet/v1/parties', { keyFingerprint: key.fingerprint, partyHint: 'traced' })
      ).partyId as string;
      const ledger = new LedgerClient({ baseUrl: `http://127.0.0.1:${sandboxPort}` });
      const body = await prepareOn(ledger, party, noteCommand(party), undefined, {
        userId: 'participant_admin',
      });
      rec = (await call('/wallet/v1/submissions?wait=20', body, {
        traceparent: `00-${traceId}-${callerSpan}-01`,
      })) as typeof rec;
      expect(rec?.status).toBe('committed');
      const seen = await ledger.transactionById({
        updateId: rec?.updateId ?? '',
        transactionFormat: {
          eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false },
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      });
      ledgerTrace = seen.transaction.traceContext;
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    await new Promise((r) => collector.close(r));
    expect(logs).toContain('tracing on');
    const mine = exported.filter((s) => s.traceId === traceId);
    const accept = mine.find((s) => s.name === 'quill.accept');
    expect(accept).toMatchObject({ parentSpanId: callerSpan, service: 'quill' });
    const execute = mine.find((s) => s.name === 'ledger.execute');
    expect(mine.map((s) => s.name).sort()).toEqual(
      ['ledger.execute', 'quill.accept', 'quill.attempt', 'quill.policy', 'quill.sign'].sort(),
    );
    expect(ledgerTrace).toMatchObject({ traceparent: `00-${traceId}-${execute?.spanId}-01` });
  });
});
