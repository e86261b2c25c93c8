// Gives the test run its own Redis: a fresh redis-server on a free loopback port, never the developer's data.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    redisPort: number;
    redisDir: string;
  }
}

/** Redis Cluster's bus port is the client port plus this. */
const CLUSTER_BUS_OFFSET = 10_000;

let child: ChildProcess | undefined;
let dir: string | undefined;

/** Whether nothing listens on 127.0.0.1:`port` now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A port nothing listens on, for a process a test starts next. Picked at random below the kernel's ephemeral range
 * (32768 and up on Linux): a port the kernel hands out (`listen(0)`, an outgoing connection) can go to another
 * process between this check and its use (a CI run failed on EADDRINUSE so). A Redis Cluster node also listens on
 * its bus port, the port + 10000, so that one is checked too and lies below the range as well (another CI run lost
 * a node whose bus port, 38184, the kernel had handed out). The kernel's choice is the fallback.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 10_000 + Math.floor(Math.random() * 12_700);
    if ((await canListen(port)) && (await canListen(port + CLUSTER_BUS_OFFSET))) return port;
  }
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

async function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = new Socket();
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(500, () => done(false));
    sock.once('error', () => done(false));
    sock.connect(port, '127.0.0.1', () => sock.write('PING\r\n'));
    sock.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const port = await freePort();
  dir = mkdtempSync(join(tmpdir(), 'quill-test-redis-'));
  child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  child.once('error', (err) => {
    throw new Error(
      `cannot start redis-server (install it: apt-get install -y redis-server): ${err.message}`,
    );
  });
  const deadline = Date.now() + 10_000;
  while (!(await pingOnce(port))) {
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  project.provide('redisUrl', `redis://127.0.0.1:${port}`);
  project.provide('redisPort', port);
  project.provide('redisDir', dir);
  return async () => {
    child?.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}
