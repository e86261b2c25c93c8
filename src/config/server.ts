// The wallet API's listener and how long a stop waits.
import { z } from 'zod';
import { intIn, port } from './env.ts';
import { section } from './section.ts';

export const server = section({
  summary: "The wallet API's HTTP listener, and how long a stop waits for work in flight.",
  vars: {
    PORT: port(8080, 0).describe('wallet API port; `0` = any free port'),
    HOST: z.string().trim().min(1).default('0.0.0.0').describe('wallet API bind address'),
    SHUTDOWN_TIMEOUT_MS: intIn(0, 600_000, 15_000).describe('how long SIGTERM waits for jobs in flight'),
  },
  outputs: { port: true, host: true, shutdownTimeoutMs: true },
  build: (e) => ({ port: e.PORT, host: e.HOST, shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS }),
});
