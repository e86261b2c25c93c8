// How Quill reaches Redis: one URL, a Sentinel group or a Cluster, behind one function.
import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** Where Redis is: a URL, or a Sentinel group or Cluster (its password and TLS taken from the URL). */
export interface RedisTarget {
  url: string;
  sentinels?: { host: string; port: number }[];
  sentinelName?: string;
  clusterNodes?: { host: string; port: number }[];
}

/**
 * The one way Quill connects to Redis, whatever the topology. A Cluster client answers the same commands (keys are
 * routed by slot; Quill's keys share one hash tag), so callers hold it as a `Redis`.
 */
export function redisConnection(target: string | RedisTarget, extra: RedisOptions = {}): Redis {
  const t = typeof target === 'string' ? { url: target } : target;
  const base: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true, ...extra };
  const u = new URL(t.url);
  const auth: RedisOptions = {
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  let conn: Redis;
  if (t.clusterNodes?.length) {
    conn = new Cluster(t.clusterNodes, {
      redisOptions: { ...base, ...auth },
      enableReadyCheck: true,
      // A Cluster option, not a node's: the cluster client batches per node.
      ...(base.enableAutoPipelining ? { enableAutoPipelining: true } : {}),
      ...(base.maxRetriesPerRequest !== undefined ? { maxRedirections: 16 } : {}),
    }) as unknown as Redis;
  } else if (t.sentinels?.length) {
    conn = new Redis({
      ...base,
      ...auth,
      sentinels: t.sentinels,
      name: t.sentinelName ?? 'mymaster',
    });
  } else {
    conn = new Redis(t.url, base);
  }
  // ioredis reconnects by itself; without a listener every failed attempt is printed as "unhandled".
  conn.on('error', () => {});
  return conn;
}
