// Private redis-server processes for tests that stop and start Redis (faults, Sentinel, Cluster). Starting is
// checked: a server that exits (its port still held by a dying predecessor, say) or never answers is an error
// naming why, never a silent "Redis is down" that leaves the test waiting for it forever.
import { type ChildProcess, spawn } from 'node:child_process';
import { Socket } from 'node:net';
import { tempDir } from './tmp.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One `PING` on a fresh socket: true on `+PONG` (not while the server is still loading its data). */
export function pingOnce(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = new Socket();
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('error', () => done(false));
    sock.connect(port, host, () => sock.write('PING\r\n'));
    sock.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

export interface RedisProcess {
  port: number;
  child: ChildProcess;
  /** What the server printed (its log goes to stdout), for failure messages. */
  output(): string;
}

/**
 * Starts `redis-server` (or `redis-server <conf> --sentinel` with `sentinelConf`) on `port` and resolves once it
 * answers PING; rejects with its last output when it exits first or does not answer within `timeoutMs`.
 */
export async function startRedisProcess(
  port: number,
  args: string[],
  o: { timeoutMs?: number; sentinelConf?: string } = {},
): Promise<RedisProcess> {
  const argv = o.sentinelConf
    ? [o.sentinelConf, '--sentinel', '--port', String(port), ...args]
    : ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...args];
  // Its own working directory: a replica's full sync (or a server without --dir) writes its files there,
  // never into the project.
  const child = spawn('redis-server', argv, {
    cwd: tempDir('quill-redis-'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `exited (${signal ?? code})`;
  });
  child.once('error', (err) => {
    exited = `could not start: ${err.message}`;
  });
  const deadline = Date.now() + (o.timeoutMs ?? 15_000);
  for (;;) {
    if (exited)
      throw new Error(
        `redis-server on port ${port} ${exited}: ${out.trim().split('\n').slice(-3).join(' | ')}`,
      );
    if (await pingOnce(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `redis-server on port ${port} did not answer PING: ${out.trim().split('\n').slice(-3).join(' | ')}`,
      );
    }
    await sleep(50);
  }
  return { port, child, output: () => out };
}

/**
 * Sends `signal` and waits until the process is gone. A SIGKILLed redis-server in the middle of an fsync stays
 * until the fsync returns, holding its port: starting the next one before that fails to bind.
 */
export async function stopRedisProcess(
  p: RedisProcess | ChildProcess,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<void> {
  const child = 'child' in p ? p.child : p;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill(signal);
  await gone;
}
