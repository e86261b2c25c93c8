// `npm start` on a fresh machine: when no Redis answers at REDIS_URL, start a private redis-server for the demo
// (data in .demo/redis, append-only) if one is installed, or stop at once with one line saying how to get one.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { Redis } from 'ioredis';
import { CommandFailure } from '../errors.ts';

/** Whether a Redis answers PING at `url` within `timeoutMs`. */
export async function redisAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  const conn = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  conn.on('error', () => {});
  try {
    await conn.connect();
    return (await conn.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    conn.disconnect();
  }
}

function onPath(command: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, command);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

function anyPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface DemoRedis {
  /** The URL to use (REDIS_URL, or the private server's). */
  url: string;
  /** Set when a private server was started: what to print, and how to stop it. */
  started?: { line: string; stop(): Promise<void> };
}

/**
 * REDIS_URL as it is when something answers there; else a private redis-server on 127.0.0.1 (REDIS_URL's port if
 * free, another one if not) with its data in `dataDir`; else a CommandFailure (exit 1) saying how to get Redis.
 */
export async function demoRedis(url: string, dataDir: string, path?: string): Promise<DemoRedis> {
  if (await redisAnswers(url)) return { url };
  const binary = onPath('redis-server', path);
  if (!binary)
    throw new CommandFailure(
      `no Redis answers at ${safeUrl(url)} and redis-server is not installed: install it (apt-get install redis-server, or brew install redis), run one in Docker (docker run -d -p 6379:6379 redis:7), or set REDIS_URL`,
    );
  const wanted = Number(new URL(url).port || 6379);
  const port = (await portFree(wanted)) ? wanted : await anyPort();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const child: ChildProcess = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dataDir, '--appendonly', 'yes', '--save', ''],
    // Its own process group: a Ctrl-C at the terminal reaches quill, which stops it after its own shutdown.
    { stdio: 'ignore', detached: true },
  );
  const privateUrl = `redis://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // However quill ends, its private Redis ends with it (a server outliving it would hold the port and the files).
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  for (let i = 0; i < 50 && !(await redisAnswers(privateUrl, 200)); i++) {
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!(await redisAnswers(privateUrl, 500))) {
    child.kill('SIGKILL');
    throw new CommandFailure(
      `no Redis answers at ${safeUrl(url)} and a private redis-server did not start on port ${port}`,
    );
  }
  return {
    url: privateUrl,
    started: {
      line: `No Redis answered at ${safeUrl(url)}: started a private redis-server on 127.0.0.1:${port} (data in ${dataDir}, append-only; it stops with quill).`,
      async stop() {
        process.removeListener('exit', killOnExit);
        if (child.exitCode === null) child.kill('SIGTERM');
        await exited;
      },
    },
  };
}

/** The URL without its password. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    u.username = '';
    return u.href.replace(/\/$/, '');
  } catch {
    return 'REDIS_URL';
  }
}
