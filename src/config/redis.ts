// Where Redis is (one server, a Sentinel group or a Cluster), the key prefix, and how writes are confirmed.
import { z } from 'zod';
import type { RedisTarget } from '../redis/index.ts';
import { intIn, url } from './env.ts';
import { section } from './section.ts';

/** host:port pairs, comma-separated. */
const hostPorts = z
  .string()
  .optional()
  .transform((s, ctx) => {
    const out: { host: string; port: number }[] = [];
    for (const item of (s ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x.length > 0)) {
      const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/.exec(item);
      const port = Number(m?.[2]);
      if (!m || port < 1 || port > 65535) {
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(item.slice(0, 60))} is not host:port` });
        return z.NEVER;
      }
      out.push({ host: (m[1] as string).replace(/^\[|\]$/g, ''), port });
    }
    return out;
  });

export const redis = section({
  summary: 'Redis: the submission store, queue, events and audit chain (every role).',
  vars: {
    REDIS_URL: url(['redis:', 'rediss:'])
      .default('redis://127.0.0.1:6379')
      .describe(
        'Redis for the submission store and queue (run it with `appendonly yes`; docs/operations.md says what ' +
          '`appendfsync always` and `everysec` each can lose on a crash)',
      ),
    REDIS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,40}$/, { error: 'must be 1-40 letters, digits, _ . or -' })
      .default('quill')
      .describe('prefix of every Redis key Quill writes'),
    REDIS_SENTINELS: hostPorts.describe(
      'a Sentinel group instead of one server: `host:port,…` of the sentinels (password and TLS from ' +
        '`REDIS_URL`); see docs/operations.md',
    ),
    REDIS_SENTINEL_NAME: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .default('mymaster')
      .describe("the name of the Sentinel group's master"),
    REDIS_CLUSTER_NODES: hostPorts.describe(
      'a Redis Cluster: `host:port,…` of some of its nodes (password and TLS from `REDIS_URL`); the key ' +
        'prefix becomes the hash tag `{REDIS_PREFIX}`',
    ),
    REDIS_DOWN_WARN_SECONDS: intIn(1, 3600, 30).describe(
      "while Redis is unreachable, one warning this often from all of the process's connections together " +
        '(not one per reconnect), then one line when it is back; `/readyz` answers `503` (`redis: false`) ' +
        'within 2 s meanwhile',
    ),
    REDIS_MIN_REPLICAS_ACK: intIn(0, 16, 0).describe(
      "a submission is accepted (`202`/`200`) only after `WAIT <n> <timeout>` on the store's connection " +
        'confirms its record on `n` replicas; fewer is `503 UNAVAILABLE` (the record may exist: retry ' +
        'with the same `Idempotency-Key` for the same record). Assumes Redis with `appendonly yes` ' +
        '(`appendfsync everysec` or `always`) on every node, and `min-replicas-to-write` / ' +
        '`min-replicas-max-lag` on the master so a master cut off from its replicas stops taking writes; ' +
        '`0` = no wait',
    ),
    REDIS_WAIT_TIMEOUT_MS: intIn(1, 60_000, 1000).describe(
      'the timeout of that `WAIT` (see `REDIS_MIN_REPLICAS_ACK`)',
    ),
  },
  outputs: {
    redisUrl: true,
    redisTarget: true,
    redisPrefix: true,
    redisDownWarnMs: true,
    redisReplicasAck: true,
  },
  build: (e, problem) => {
    if (e.REDIS_SENTINELS.length > 0 && e.REDIS_CLUSTER_NODES.length > 0)
      problem('REDIS_SENTINELS and REDIS_CLUSTER_NODES are both set: choose one topology');
    const cluster = e.REDIS_CLUSTER_NODES.length > 0;
    const target: RedisTarget = {
      url: e.REDIS_URL,
      ...(e.REDIS_SENTINELS.length > 0
        ? { sentinels: e.REDIS_SENTINELS, sentinelName: e.REDIS_SENTINEL_NAME }
        : {}),
      ...(cluster ? { clusterNodes: e.REDIS_CLUSTER_NODES } : {}),
    };
    return {
      redisUrl: e.REDIS_URL,
      redisTarget: target,
      // On a Cluster every key of a deployment carries one hash tag: each Lua script's keys and each BullMQ
      // queue live in one slot, as BullMQ documents for its prefix.
      redisPrefix: cluster ? `{${e.REDIS_PREFIX}}` : e.REDIS_PREFIX,
      redisDownWarnMs: e.REDIS_DOWN_WARN_SECONDS * 1000,
      /** Replicas that must acknowledge a stored submission before it is accepted (WAIT); 0 = no wait. */
      redisReplicasAck: { replicas: e.REDIS_MIN_REPLICAS_ACK, timeoutMs: e.REDIS_WAIT_TIMEOUT_MS },
    };
  },
});
