// `quill serve`: API and/or worker on the participant at LEDGER_URL; `--sandbox` / `--demo` run it on the embedded
// sandbox instead (src/dev), which only those flags ever start.
import cluster from 'node:cluster';
import { Command, Option } from 'commander';
import { UsageError } from '../errors.ts';
import { serve } from '../server/serve.ts';
import type { Role } from '../server/wallet.ts';
import type { CliEnv } from './support.ts';

type AnyAudience = { insecureAnyAudience?: boolean };

export function serveCommand(env: CliEnv = {}): Command {
  return new Command('serve')
    .description('run the wallet (API and worker) on the participant at LEDGER_URL')
    .addOption(
      new Option('--role <role>', 'api | worker | all').choices(['api', 'worker', 'all']).default('all'),
    )
    .option('--sandbox', 'run on the embedded sandbox ledger instead of LEDGER_URL (development and tests)')
    .option(
      '--demo',
      'the embedded sandbox with demo data, generated secrets in .demo/, a demo key and party, a console sign-in link',
    )
    .option('--insecure-no-auth', 'serve the API without authentication (development only)')
    .option('--insecure-any-audience', 'with AUTH_JWKS_URL, accept tokens without checking AUTH_AUDIENCE')
    .option('--processes <k>', 'with --role api: serve one port from K processes (node:cluster)', '1')
    .action(
      async (
        o: {
          role: Role;
          demo?: boolean;
          sandbox?: boolean;
          insecureNoAuth?: boolean;
          processes: string;
        } & AnyAudience,
      ) => {
        const processes = Number(o.processes);
        if (!/^\d{1,2}$/.test(o.processes) || processes < 1 || processes > 64)
          throw new UsageError('--processes: a whole number from 1 to 64');
        if (processes > 1 && o.role !== 'api')
          throw new UsageError(
            '--processes needs --role api (run more --role worker processes for the worker side)',
          );
        if (processes > 1 && cluster.isPrimary) return superviseApi(processes);
        const options = {
          env,
          role: o.role,
          insecureNoAuth: !!o.insecureNoAuth,
          insecureAnyAudience: !!o.insecureAnyAudience,
        };
        // Signals are ours from the start: one that arrives before the process is up (nothing in flight to
        // drain yet) ends it at once with exit code 1, rather than the default kill by signal.
        const duringStart = (sig: string) => {
          process.stderr.write(`quill: ${sig} during start-up: exiting\n`);
          process.exit(1);
        };
        process.on('SIGTERM', duringStart);
        process.on('SIGINT', duringStart);
        const { stop, log, shutdownGraceMs } =
          o.demo || o.sandbox
            ? await (await import('../dev/serve.ts')).serveEmbedded({ ...options, demo: !!o.demo })
            : await serve(options);
        // Graceful shutdown always ends: jobs in flight get SHUTDOWN_TIMEOUT_MS, then the process exits even if
        // a connection (an unreachable Redis, say) would keep it alive. A second signal exits at once.
        await new Promise<void>((resolve) => {
          const onSignal = (sig: string) => {
            log('info', `${sig}: shutting down`);
            process.off('SIGTERM', onSignal);
            process.off('SIGINT', onSignal);
            process.once('SIGTERM', () => process.exit(1));
            process.once('SIGINT', () => process.exit(1));
            setTimeout(() => {
              log('error', `shutdown did not finish within ${shutdownGraceMs} ms: exiting`);
              process.exit(1);
            }, shutdownGraceMs).unref();
            stop().then(resolve, (err) => {
              log('error', `shutdown failed: ${(err as Error).message}`);
              process.exitCode = 1;
              resolve();
            });
          };
          process.off('SIGTERM', duringStart);
          process.off('SIGINT', duringStart);
          process.on('SIGTERM', onSignal);
          process.on('SIGINT', onSignal);
        });
        // Stopped: leave even if a client library still holds a reconnect timer.
        setTimeout(() => process.exit(), 1_000).unref();
      },
    );
}

/**
 * The primary of `--processes K`: forks K API processes that share the port (node:cluster hands each connection to
 * one of them), replaces one that dies (1 s, doubling up to 30 s while they keep dying young), forwards SIGTERM and
 * SIGINT, and exits when all have stopped.
 */
async function superviseApi(k: number): Promise<void> {
  let stopping = false;
  let delayMs = 1000;
  const fork = () => {
    const started = Date.now();
    const child = cluster.fork();
    child.on('exit', (code, signal) => {
      if (stopping) return;
      delayMs = Date.now() - started > 60_000 ? 1000 : Math.min(30_000, delayMs * 2);
      process.stderr.write(
        `${JSON.stringify({ level: 'warn', time: new Date().toISOString(), msg: `API process ${child.process.pid} exited (${signal ?? code}); starting another in ${delayMs} ms` })}\n`,
      );
      setTimeout(() => !stopping && fork(), delayMs);
    });
  };
  for (let i = 0; i < k; i++) fork();
  await new Promise<void>((resolve) => {
    const onSignal = (sig: NodeJS.Signals) => {
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(sig);
      const check = setInterval(() => {
        if (Object.keys(cluster.workers ?? {}).length === 0) {
          clearInterval(check);
          resolve();
        }
      }, 100);
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
}
