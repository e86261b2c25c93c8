// `quill serve --sandbox` and `--demo` (`npm start`): the sandbox ledger and scan started in this process and the
// wallet on them. `--demo` adds generated secrets in .demo/, a private Redis when none answers, a demo key, party
// and prepared transaction, and an admin console sign-in link: the only `serve` that prints one.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../config/index.ts';
import { consoleBaseUrl, signInLink } from '../console/index.tsx';
import { UsageError } from '../errors.ts';
import { shortAmount } from '../policy/index.ts';
import type { RedisTarget } from '../redis/connection.ts';
import { type ServeOptions, type Serving, serve } from '../server/serve.ts';
import { DEMO_REDIS_PREFIX, demoAudit, demoEnv, prepareDemo, resetDemoState } from './demo.ts';
import { demoRedis } from './private-redis.ts';
import { loadSandbox } from './sandbox.ts';

/** What the demo party holds at start, per registry. */
const DEMO_FUNDS = [
  { registry: 'amulet', amount: '1000.0000000000' },
  { registry: 'usdq', amount: '500.0000000000' },
] as const;

export async function serveEmbedded(o: Omit<ServeOptions, 'embedded'> & { demo: boolean }): Promise<Serving> {
  const flag = o.demo ? '--demo' : '--sandbox';
  const prepared = o.demo ? await demoEnv(o.env) : undefined;
  let env = prepared ? { ...o.env, ...prepared.overrides } : o.env;
  const config = loadConfig(env, ['ledger', 'sandbox', 'commit', 'redis']);
  if (config.ledgerUrl) throw new UsageError(`${flag} runs on the embedded sandbox: unset LEDGER_URL`);
  if (o.role !== 'all')
    throw new UsageError(`${flag} needs --role all (the embedded sandbox lives in this one process)`);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => {});
  };
  let demoTarget: RedisTarget | undefined;
  try {
    if (prepared) {
      // A fresh machine: no Redis yet. The demo starts a private one rather than retrying forever.
      const redis = await demoRedis(config.redisUrl, join(prepared.demo.dir, 'redis'));
      if (redis.started) {
        process.stdout.write(`${redis.started.line}\n`);
        stops.push(redis.started.stop);
        env = { ...env, REDIS_URL: redis.url };
      }
      env = { ...env, ...(await demoAudit(env, prepared.demo)) };
      demoTarget = redis.started ? { url: redis.url } : config.redisTarget;
    }
    const { startSandbox, startAdminApi, SANDBOX_RECOGNIZERS, mintHolding, grantPreapproval } =
      await loadSandbox();
    const secret = config.sandbox.authSecret;
    const sandbox = await startSandbox({
      port: config.sandbox.port,
      scanPort: config.sandbox.scanPort,
      host: '127.0.0.1',
      auth: secret ? { secret } : 'none',
      demo: o.demo,
      // The embedded ledger enforces the window the wallet assumes, so the two never disagree.
      ledger: { preparationTimeToleranceSeconds: config.commitWindow.preparationToleranceMs / 1000 },
      hosts: config.sandbox.hosts,
    });
    stops.push(() => sandbox.close());
    // Its admin API (the topology services), so that a party's keys can be changed as on a real participant.
    const adminToken = secret ? randomBytes(24).toString('hex') : undefined;
    const adminApi = await startAdminApi(sandbox.state.topology, {
      port: config.sandbox.adminPort,
      participantId: sandbox.state.participantId,
      ...(adminToken ? { token: adminToken } : {}),
    });
    stops.push(() => adminApi.close());
    if (demoTarget && config.redisPrefix === DEMO_REDIS_PREFIX) {
      // A new, empty embedded ledger (its port now ours: no other demo runs on it): the wallet's state of an
      // earlier run would name what the ledger no longer holds. Only the demo's own prefix is ever cleared.
      const cleared = await resetDemoState(demoTarget, config.redisPrefix);
      // The checkpoints of the chain just cleared would contradict the new one: the demo's file starts over too.
      if (prepared?.demo.auditCheckpoints) await rm(prepared.demo.auditCheckpoints, { force: true });
      if (cleared > 0)
        process.stdout.write(
          `The embedded ledger starts empty: cleared the wallet's earlier demo state (${cleared} Redis keys under ` +
            `REDIS_PREFIX ${config.redisPrefix}).\n`,
        );
    }
    // With ledger auth on, the wallet acts as its own ledger user with a token naming it; without, as the user
    // LEDGER_USER_ID names, by default the embedded ledger's admin (a ledger without auth refuses an empty one).
    const userId = config.ledgerUserId ?? (secret ? 'quill' : 'participant_admin');
    const token = secret ? await sandbox.mintToken(userId, { admin: true }) : undefined;
    const serving = await serve({
      ...o,
      env,
      embedded: {
        url: sandbox.url,
        scanUrl: sandbox.scanUrl,
        // The sandbox's registries as holding recognizers (its `{holdings}` table once it exports one).
        recognizers: SANDBOX_RECOGNIZERS,
        registries: Object.fromEntries(
          Object.values(sandbox.registries).map((r) => [r.admin, r.registryUrl]),
        ),
        ...(token ? { token } : {}),
        userId,
        hosts: sandbox.hosts.map((h) => ({ name: h.name, url: h.url })),
        admin: { url: adminApi.url, ...(adminToken ? { token: adminToken } : {}) },
      },
    });
    stops.push(() => serving.stop());
    serving.log('info', `embedded sandbox ledger on ${sandbox.url}, activity feed on ${sandbox.scanUrl}`, {
      adminApi: adminApi.url,
      ...(sandbox.hosts.length ? { hosts: sandbox.hosts.map((h) => `${h.name}=${h.url}`).join(',') } : {}),
    });
    const { config: wallet } = serving;
    if (prepared && serving.url && serving.port !== undefined) {
      const secretForLinks = wallet.auth.jwtSecret ?? prepared.demo.secret;
      const base = consoleBaseUrl({
        publicUrl: wallet.console.publicUrl,
        host: wallet.host,
        port: serving.port,
      });
      await prepareDemo({
        demo: prepared.demo,
        walletUrl: serving.url,
        sandbox: { url: sandbox.url, scanUrl: sandbox.scanUrl, userId, ...(token ? { token } : {}) },
        // The registries' admins mint to the demo party: token-standard holdings of two instruments to move.
        fund: (party) =>
          DEMO_FUNDS.map(({ registry, amount }) => {
            mintHolding(sandbox.state, registry, party, amount);
            return `${shortAmount(amount)} ${sandbox.registries[registry].instrumentId.id}`;
          }),
        preapprove: (party) => {
          for (const { registry } of DEMO_FUNDS) grantPreapproval(sandbox.state, registry, party);
        },
        instrument: sandbox.registries.usdq.instrumentId,
        ...(wallet.console.enabled
          ? {
              consoleLink: await signInLink(secretForLinks, base, {
                role: 'admin',
                ttlSeconds: 15 * 60,
                subject: 'console-admin',
              }),
            }
          : {}),
        redisUrl: env.REDIS_URL ?? config.redisUrl,
        log: serving.log,
      });
    }
    return { ...serving, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
