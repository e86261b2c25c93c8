// Acceptance durability (REDIS_MIN_REPLICAS_ACK): a submission is promised (202) only once enough replicas hold
// it. WAIT counts one connection's writes on one server, so the check follows that connection through failovers.
import { Cluster, type Redis } from 'ioredis';
import { StoreError } from './errors.ts';

/** How often each connection became ready: a new generation is a new server session (reconnect, failover). */
const generations = new WeakMap<Redis, { n: number }>();
function generation(conn: Redis): { n: number } {
  let g = generations.get(conn);
  if (!g) {
    const fresh = { n: 0 };
    conn.on('ready', () => {
      fresh.n++;
    });
    generations.set(conn, fresh);
    g = fresh;
  }
  return g;
}

/** What the accept step calls around its writes (src/submissions/accept.ts `durable`). */
export interface Durability {
  mark(): Promise<unknown>;
  confirm(mark: unknown): Promise<void>;
}

/**
 * WAIT on the store's own connection (WAIT counts that connection's writes on that server): the submission just
 * stored is on `replicas` replicas, or the caller gets 503 and retries with the same Idempotency-Key. WAIT after a
 * reconnect would ask the new master about writes it never saw (and answer at once, wrongly): a connection that
 * changed, or was re-established, between the mark and the WAIT's answer is a 503 too.
 */
export function replication(
  redis: Redis,
  prefix: string,
  ack: { replicas: number; timeoutMs: number },
): Durability {
  const unconfirmed = (why: string, cause?: unknown) =>
    new StoreError('UNAVAILABLE', why, cause === undefined ? undefined : { cause });
  return {
    async mark(): Promise<unknown> {
      const conn = await writer(redis, prefix);
      return { conn, n: generation(conn).n };
    },
    async confirm(mark: unknown): Promise<void> {
      const m = mark as { conn: Redis; n: number };
      const same = () => generation(m.conn).n === m.n;
      let acked: number;
      try {
        const conn = await writer(redis, prefix);
        if (conn !== m.conn || !same())
          throw unconfirmed('Redis failed over while the submission was stored');
        acked = Number(await conn.wait(ack.replicas, ack.timeoutMs));
      } catch (err) {
        if (err instanceof StoreError) throw err;
        throw unconfirmed('Redis did not confirm the write', err);
      }
      if (!same()) throw unconfirmed('Redis failed over while the submission was stored');
      if (acked < ack.replicas)
        throw unconfirmed(
          `the submission reached ${acked} of the ${ack.replicas} Redis replicas required (REDIS_MIN_REPLICAS_ACK) within ${ack.timeoutMs} ms`,
        );
    },
  };
}

/**
 * The connection that made the store's writes: the client itself, or on a Cluster the pool's connection to the
 * master of the deployment's one slot (WAIT has no key, so the Cluster client would send it to any node).
 */
async function writer(redis: Redis, prefix: string): Promise<Redis> {
  const cluster: unknown = redis;
  if (!(cluster instanceof Cluster)) return redis;
  const slot = Number(await cluster.cluster('KEYSLOT', prefix));
  const owner = cluster.slots[slot]?.[0];
  const node = cluster.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === owner);
  if (!node) throw new Error(`no master known for slot ${slot}`);
  return node;
}
