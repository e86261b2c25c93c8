// Both compose files run as far as this machine allows without a Docker engine (issue 31 item 7): every service's
// command and environment, as the file gives them, started as a process. Compose's service names become 127.0.0.1
// and free ports (redis:6379, the Sentinel group's master, replicas and sentinels with the configuration their
// commands write, sandbox:7575/7576 or the LEDGER_URL an operator sets, each published or internal PORT), its named
// volume a shared folder (quill-keys: every Quill process sees the same key store, as in the file). Then the
// deployment does what it is for: both API processes and both workers are ready, a key made through api-1 onboards
// a party through api-2 (the shared volume), a command submitted through api-2 is committed by a worker, and api-1
// reads the same record.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { issueToken } from '../../../src/auth/index.ts';
import { freePort } from '../../support/redis-global-setup.ts';
import { type RedisProcess, startRedisProcess, stopRedisProcess } from '../../support/redis-process.ts';
import { tempDir } from '../../support/tmp.ts';

interface Service {
  command?: string[];
  entrypoint?: string[];
  build?: unknown;
  image?: string;
  environment?: Record<string, string>;
}

const SECRET = 'compose-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

/** One compose file's services running as processes on this machine. */
class Deployment {
  readonly services: Record<string, Service>;
  readonly quill: [string, Service][];
  readonly port: Record<string, number> = {};
  readonly logs: Record<string, string> = {};
  readonly redis: RedisProcess[] = [];
  private readonly children: ChildProcess[] = [];
  private readonly keysDir = tempDir('quill-compose-keys-');

  constructor(readonly file: string) {
    this.services = (
      parse(readFileSync(file, 'utf8'), { merge: true }) as { services: Record<string, Service> }
    ).services;
    this.quill = Object.entries(this.services).filter(([, s]) => s.build === '.');
  }

  /** What an operator sets in .env for the file's ${VAR:?…}: the secrets, and a participant where none is given. */
  private dotenv(): Record<string, string> {
    return {
      KEYSTORE_PASSPHRASE: 'compose processes passphrase',
      AUTH_JWT_SECRET: SECRET,
      ...(this.services.sandbox
        ? {}
        : {
            LEDGER_URL: `http://127.0.0.1:${this.port.ledger}`,
            SCAN_URL: `http://127.0.0.1:${this.port.scan}`,
            // A participant without auth: no token names the ledger user.
            LEDGER_USER_ID: 'participant_admin',
          }),
    };
  }

  /** A service name (and the port it listens on in the file) as this machine has it. */
  private host(name: string): string {
    return `127.0.0.1:${this.port[name]}`;
  }

  /** The value as compose would give it, then compose's host names and volumes as this machine has them. */
  private resolveValue(v: string): string {
    const dotenv = this.dotenv();
    const interpolated = v.replace(
      /\$\{(\w+)(?::-([^}]*)|:\?[^}]*)?\}/g,
      (_m, name: string, dflt?: string) =>
        dotenv[name] !== undefined ? (dotenv[name] as string) : (dflt ?? ''),
    );
    if (/^\/app\/keys$/.test(interpolated)) return this.keysDir;
    return interpolated
      .replace(/\b(redis|redis-master):6379\b/g, (_m, n: string) => this.host(n))
      .replace(/\bsentinel-(\d):26379\b/g, (_m, i: string) => this.host(`sentinel-${i}`))
      .replace('http://sandbox:7575', `http://127.0.0.1:${this.port.ledger}`)
      .replace('http://sandbox:7576', `http://127.0.0.1:${this.port.scan}`);
  }

  private run(name: string, argv: string[], env: Record<string, string>): void {
    const child = spawn(process.execPath, argv, { env: { PATH: process.env.PATH ?? '', ...env } });
    this.logs[name] = '';
    const keep = (d: Buffer) => {
      this.logs[name] = ((this.logs[name] ?? '') + d.toString()).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.children.push(child);
  }

  async until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check().catch(() => false))) {
      if (Date.now() > deadline)
        throw new Error(`${what} within ${ms} ms; logs: ${JSON.stringify(this.logs).slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** A Redis service: the file's redis-server arguments, host names and ports mapped. */
  private async redisServer(name: string, s: Service): Promise<void> {
    const args = (s.command ?? []).slice(1);
    const mapped = args.map((a, i) =>
      /^redis(-master|-replica-\d)?$/.test(a)
        ? '127.0.0.1'
        : args[i - 1] === 'redis-master'
          ? String(this.port['redis-master'])
          : a,
    );
    this.redis.push(await startRedisProcess(this.port[name] as number, mapped));
  }

  /** A sentinel service: the configuration its shell command writes, host names and ports mapped. */
  private async sentinel(name: string, s: Service): Promise<void> {
    const printf = /printf '([^']*)'/.exec((s.command ?? []).join('\n'))?.[1] ?? '';
    const conf = printf
      .split('\\n')
      .filter((l) => l && !l.startsWith('port '))
      .map((l) => l.replace('redis-master 6379', `127.0.0.1 ${this.port['redis-master']}`))
      .join('\n');
    const file = join(tempDir('quill-compose-sentinel-'), 'sentinel.conf');
    writeFileSync(file, `${conf}\n`);
    this.redis.push(await startRedisProcess(this.port[name] as number, [], { sentinelConf: file }));
  }

  async start(): Promise<void> {
    for (const name of ['ledger', 'scan', ...Object.keys(this.services)]) this.port[name] = await freePort();
    const redisNames = Object.keys(this.services).filter((n) => /^redis/.test(n));
    // The master first (the replicas follow it), then the sentinels watching it.
    for (const n of redisNames.sort()) await this.redisServer(n, this.services[n] as Service);
    for (const n of Object.keys(this.services).filter((x) => x.startsWith('sentinel-')))
      await this.sentinel(n, this.services[n] as Service);
    // The participant: the file's sandbox service, else the sandbox standing in for LEDGER_URL.
    const sandboxArgs = (
      this.services.sandbox?.command ?? [
        '--host',
        '0.0.0.0',
        '--port',
        '7575',
        '--scan-port',
        '7576',
        '--no-auth',
      ]
    ).map((a) =>
      a === '7575'
        ? String(this.port.ledger)
        : a === '7576'
          ? String(this.port.scan)
          : a === '0.0.0.0'
            ? '127.0.0.1'
            : a,
    );
    this.run('sandbox', [resolve('packages/sandbox/bin/quill-sandbox.js'), ...sandboxArgs], {});
    await this.until(
      async () => (await fetch(`http://127.0.0.1:${this.port.ledger}/livez`)).ok,
      30_000,
      'the sandbox answers',
    );
    for (const [name, s] of this.quill) {
      const env = Object.fromEntries(
        Object.entries(s.environment ?? {}).map(([k, v]) => [k, this.resolveValue(String(v))]),
      );
      // The published port (api-1: 8080, api-2: 8081) or the internal one (workers: 9090), here a free one each.
      env.PORT = String(this.port[name]);
      env.HOST = '127.0.0.1';
      this.run(name, [resolve('bin/quill.js'), ...(s.command ?? [])], env);
    }
    for (const [name] of this.quill)
      await this.until(
        async () => (await fetch(`http://127.0.0.1:${this.port[name]}/readyz`)).ok,
        60_000,
        `${name} is ready`,
      );
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(
        (c) =>
          new Promise<void>((r) => {
            if (c.exitCode !== null || c.signalCode !== null) return r();
            c.once('exit', () => r());
            c.kill('SIGTERM');
            setTimeout(() => c.kill('SIGKILL'), 10_000).unref();
          }),
      ),
    );
    for (const r of this.redis) await stopRedisProcess(r);
  }
}

describe.each(['docker-compose.yml', 'docker-compose.sentinel.yml'])('%s as processes', (file) => {
  const d = new Deployment(file);
  beforeAll(() => d.start(), 150_000);
  afterAll(() => d.stop(), 60_000);

  it('starts every Quill service of the file: two API processes and two workers', () => {
    expect(d.quill.map(([n, s]) => `${n}: ${(s.command ?? []).join(' ')}`).sort()).toEqual([
      'api-1: serve --role api',
      'api-2: serve --role api',
      'worker-1: serve --role worker',
      'worker-2: serve --role worker',
    ]);
    for (const r of d.redis) expect(r.output()).toMatch(/Ready to accept connections|monitor master/);
  });

  it('a key made through api-1 onboards through api-2, a worker commits what api-2 accepted, api-1 reads it', async () => {
    const admin = await issueToken({
      secret: SECRET,
      role: 'admin',
      ttlSeconds: 600,
      subject: 'compose-test',
    });
    const call = async (api: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${d.port[api]}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${admin}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    const key = await call('api-1', 'POST', '/wallet/v1/keys', { algorithm: 'ed25519', label: 'compose' });
    expect(key.status).toBe(201);
    const party = await call('api-2', 'POST', '/wallet/v1/parties', {
      keyFingerprint: key.json.fingerprint,
      partyHint: 'compose',
    });
    expect(party.status, JSON.stringify(party.json)).toBe(201);
    const partyId = party.json.partyId as string;
    const sent = await call('api-2', 'POST', '/wallet/v1/commands?wait=30', {
      party: partyId,
      commands: [
        {
          CreateCommand: {
            templateId: '#quill-demo:Demo:Greeting',
            createArguments: { owner: partyId, message: `hello from ${file}` },
          },
        },
      ],
    });
    expect(sent.json, JSON.stringify(sent.json)).toMatchObject({ status: 'committed', party: partyId });
    const read = await call('api-1', 'GET', `/wallet/v1/submissions/${sent.json.id}`);
    expect(read.json).toMatchObject({ status: 'committed', updateId: sent.json.updateId });
    for (const w of ['worker-1', 'worker-2']) expect(d.logs[w]).toMatch(/worker on queue/);
  }, 60_000);
});
