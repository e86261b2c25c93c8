// F11 (DNS rebinding): a webhook name that answers a public address to the target check and 127.0.0.1 to any
// later lookup must never reach the loopback listener; the delivery connects to the address that was checked,
// with the name in the Host header. The rebinding resolver is both injected into the delivery and installed as the
// process's resolver (as a TTL-0 rebinding DNS server would answer every lookup), so no lookup leaves the machine.
import dns from 'node:dns';
import { createServer, type IncomingMessage } from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { dispatchStep, startDelivery } from '../../../src/events/index.ts';
import { conn, parts, receiver, until } from '../../support/events.ts';

const NAME = 'rebind.attacker.test';

interface Answer {
  address: string;
  family: 4 | 6;
}

/** Answers `first` to the first lookup of NAME and `later` to every other one; any other name fails. */
function rebinding(first: string, later: string) {
  let calls = 0;
  const answer = (host: string): Answer[] => {
    if (host !== NAME) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    calls++;
    return [{ address: calls === 1 ? first : later, family: 4 }];
  };
  return {
    calls: () => calls,
    resolve: async (host: string) => answer(host),
    answer,
  };
}

const saved = { lookup: dns.lookup, promisesLookup: dns.promises.lookup };
/** Every lookup in this process (callback and promise forms) goes to `r`. */
function installProcessResolver(r: ReturnType<typeof rebinding>) {
  const fake = (host: string, a?: unknown, b?: unknown) => {
    const cb = (typeof a === 'function' ? a : b) as (e: Error | null, ...rest: unknown[]) => void;
    const opts = (typeof a === 'object' && a !== null ? a : {}) as { all?: boolean };
    try {
      const all = r.answer(host);
      const one = all[0] as Answer;
      process.nextTick(() => (opts.all ? cb(null, all) : cb(null, one.address, one.family)));
    } catch (err) {
      process.nextTick(() => cb(err as Error));
    }
  };
  (dns as { lookup: unknown }).lookup = fake;
  (dns.promises as { lookup: unknown }).lookup = async (host: string, o?: { all?: boolean }) => {
    const all = r.answer(host);
    return o?.all ? all : all[0];
  };
  syncBuiltinESMExports();
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  (dns as { lookup: unknown }).lookup = saved.lookup;
  (dns.promises as { lookup: unknown }).lookup = saved.promisesLookup;
  syncBuiltinESMExports();
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A listener on `host:port` that records every request. */
async function listener(host: string, port: number) {
  const got: IncomingMessage['headers'][] = [];
  const server = createServer((req, res) => {
    got.push(req.headers);
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((r) => server.listen(port, host, r));
  cleanup.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return got;
}

describe('webhook delivery connects to the address it checked (F11)', () => {
  it('a name that resolves public, then loopback, never reaches the loopback listener', async () => {
    const rx = await receiver();
    cleanup.push(() => rx.close());
    const port = new URL(rx.url).port;
    const r = rebinding('203.0.113.7', '127.0.0.1');
    installProcessResolver(r);
    const p = parts({ allowPrivateTargets: false, timeoutMs: 300, retryForMs: 60_000, resolve: r.resolve });
    cleanup.push(() => p.close());
    const { webhook } = await p.hooks.create({
      url: `http://${NAME}:${port}/hook`,
      types: [],
      party: null,
      description: null,
    });
    const runner = startDelivery(p.deliveries, {
      connection: conn(),
      reader: conn(),
      sweepEveryMs: 200,
      pollMs: 200,
    });
    cleanup.push(() => runner.stop());
    await dispatchStep(p.deliveries);
    const id = await p.log.append('submission.committed', 'alice::1220aa', {});
    await until(
      async () => {
        const s = await p.deliveries.state(webhook.id, id);
        return s?.state === 'delivered' || (s?.attempts ?? 0) >= 3;
      },
      10_000,
      'three attempts (or a delivery)',
    );
    await runner.stop();
    expect(rx.got).toHaveLength(0);
    const [entry] = await p.deliveries.list(webhook.id, 1);
    const errors = (entry?.attemptLog ?? []).map((a) => a.error).reverse();
    // The first attempt connected to the checked public address (unreachable here); later checks saw loopback.
    expect(['TIMEOUT', 'CONNECTION_FAILED']).toContain(errors[0]);
    expect(errors.slice(1).every((e) => e === 'PRIVATE_TARGET')).toBe(true);
    // One lookup per attempt: the connection did not resolve the name again.
    expect(r.calls()).toBe(errors.length);
  });

  it('with private targets allowed, the pinned connection goes to the checked address and carries the Host name', async () => {
    const rx = await receiver();
    cleanup.push(() => rx.close());
    const port = Number(new URL(rx.url).port);
    // Same port on another loopback address: where a second lookup would send the request.
    const other = await listener('127.0.0.2', port);
    const r = rebinding('127.0.0.1', '127.0.0.2');
    installProcessResolver(r);
    const p = parts({ allowPrivateTargets: true, resolve: r.resolve });
    cleanup.push(() => p.close());
    const { webhook } = await p.hooks.create({
      url: `http://${NAME}:${port}/hook`,
      types: [],
      party: null,
      description: null,
    });
    const runner = startDelivery(p.deliveries, {
      connection: conn(),
      reader: conn(),
      sweepEveryMs: 200,
      pollMs: 200,
    });
    cleanup.push(() => runner.stop());
    await dispatchStep(p.deliveries);
    const id = await p.log.append('submission.committed', 'alice::1220aa', {});
    await until(
      async () => (await p.deliveries.state(webhook.id, id))?.state === 'delivered',
      10_000,
      'delivered',
    );
    expect(rx.accepted).toHaveLength(1);
    expect(rx.accepted[0]?.headers.host).toBe(`${NAME}:${port}`);
    expect(JSON.parse(rx.accepted[0]?.body ?? '{}').eventId).toBe(id);
    expect(other).toHaveLength(0);
    expect(r.calls()).toBe(1);
  });

  it('https: the pinned connection sends the name as TLS SNI', async () => {
    // No certificate is needed to read the ClientHello: the handshake then fails, which is fine here.
    const sni: (string | undefined)[] = [];
    const tls = createTlsServer({
      SNICallback: (name, cb) => {
        sni.push(name);
        cb(new Error('no certificate in this test'));
      },
    });
    tls.on('tlsClientError', () => {});
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise<void>((r) => tls.close(() => r())));
    const port = (tls.address() as AddressInfo).port;
    const r = rebinding('127.0.0.1', '127.0.0.2');
    installProcessResolver(r);
    const p = parts({ allowPrivateTargets: true, retryForMs: 1, resolve: r.resolve });
    cleanup.push(() => p.close());
    const { webhook } = await p.hooks.create({
      url: `https://${NAME}:${port}/hook`,
      types: [],
      party: null,
      description: null,
    });
    const runner = startDelivery(p.deliveries, {
      connection: conn(),
      reader: conn(),
      sweepEveryMs: 200,
      pollMs: 200,
    });
    cleanup.push(() => runner.stop());
    await dispatchStep(p.deliveries);
    const id = await p.log.append('submission.committed', 'alice::1220aa', {});
    await until(async () => (await p.deliveries.state(webhook.id, id))?.state === 'dead', 10_000, 'dead');
    expect((await p.deliveries.state(webhook.id, id))?.lastError).toBe('CONNECTION_FAILED');
    expect(sni[0]).toBe(NAME);
  });
});
