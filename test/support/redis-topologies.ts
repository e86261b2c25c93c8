// Real Redis topologies for tests: a Cluster of three masters and three replicas (`redis-server --cluster-enabled
// yes` and `redis-cli --cluster create`), and a Sentinel group (a master, two replicas, three sentinels), each on
// free ports in a temporary folder, all stopped by `stop()`.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './redis-global-setup.ts';
import { type RedisProcess, startRedisProcess, stopRedisProcess } from './redis-process.ts';
import { tempDir } from './tmp.ts';

export interface Topology {
  nodes: RedisProcess[];
  stop(): Promise<void>;
}

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function info(port: number, section: string): Promise<string> {
  const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
  c.on('error', () => {});
  try {
    await c.connect();
    return section === 'cluster' ? String(await c.cluster('INFO')) : await c.info(section);
  } finally {
    c.disconnect();
  }
}

export interface Cluster extends Topology {
  /** Starts a stopped node again on its port with its nodes.conf: it rejoins (a former master as a replica). */
  restart(port: number): Promise<void>;
}

export async function startCluster(): Promise<Cluster> {
  const dir = tempDir('quill-cluster-');
  const nodes: RedisProcess[] = [];
  const stop = async () => {
    for (const n of nodes) await stopRedisProcess(n);
  };
  const startNode = (port: number) =>
    startRedisProcess(port, [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, `nodes-${port}.conf`),
      '--cluster-node-timeout',
      '2000',
      '--dir',
      dir,
      '--appendonly',
      'no',
    ]);
  const restart = async (port: number) => {
    const i = nodes.findIndex((n) => n.port === port);
    if (i < 0) throw new Error(`no cluster node on port ${port}`);
    nodes[i] = await startNode(port);
  };
  try {
    for (let i = 0; i < 6; i++) nodes.push(await startNode(await freePort()));
    const create = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((n) => `127.0.0.1:${n.port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (create.status !== 0)
      throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
    for (const n of nodes)
      await until(
        async () => (await info(n.port, 'cluster')).includes('cluster_state:ok'),
        20_000,
        'cluster_state:ok',
      );
    return { nodes, stop, restart };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface SentinelGroup extends Topology {
  master: RedisProcess;
  replicas: RedisProcess[];
  sentinels: RedisProcess[];
  name: string;
}

export async function startSentinelGroup(): Promise<SentinelGroup> {
  const dir = tempDir('quill-sentinel-');
  const name = 'quillmaster';
  const all: RedisProcess[] = [];
  const stop = async () => {
    for (const n of all) await stopRedisProcess(n);
  };
  try {
    const master = await startRedisProcess(await freePort(), ['--appendonly', 'yes', '--dir', dir]);
    all.push(master);
    const replicas: RedisProcess[] = [];
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const r = await startRedisProcess(port, [
        '--replicaof',
        '127.0.0.1',
        String(master.port),
        '--appendonly',
        'yes',
        '--appendfilename',
        `replica-${port}.aof`,
        '--appenddirname',
        `aof-${port}`,
        '--dir',
        dir,
      ]);
      replicas.push(r);
      all.push(r);
    }
    for (const r of replicas)
      await until(
        async () => (await info(r.port, 'replication')).includes('master_link_status:up'),
        15_000,
        'replica link',
      );
    const sentinels: RedisProcess[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const conf = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${master.port} 2`,
          `sentinel down-after-milliseconds ${name} 1000`,
          `sentinel failover-timeout ${name} 5000`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      const s = await startRedisProcess(port, [], { sentinelConf: conf });
      sentinels.push(s);
      all.push(s);
    }
    // Every sentinel knows the replicas and the other sentinels before anything is killed.
    for (const s of sentinels)
      await until(
        async () => {
          const c = new Redis({ port: s.port, host: '127.0.0.1', lazyConnect: true });
          c.on('error', () => {});
          try {
            await c.connect();
            const m = (await c.call('SENTINEL', 'MASTER', name)) as string[];
            const field = (k: string) => Number(m[m.indexOf(k) + 1]);
            return field('num-slaves') === 2 && field('num-other-sentinels') === 2;
          } finally {
            c.disconnect();
          }
        },
        20_000,
        'sentinels to see the group',
      );
    return { nodes: all, master, replicas, sentinels, name, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
