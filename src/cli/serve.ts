// `quill serve`: API and/or worker, on a real participant (LEDGER_URL) or the embedded sandbox.
import { Command, Option } from 'commander';
import { serve } from '../server/serve.ts';
import type { Role } from '../server/wallet.ts';
import type { CliEnv } from './support.ts';

type AnyAudience = { insecureAnyAudience?: boolean };

export function serveCommand(env: CliEnv = {}): Command {
  return new Command('serve')
    .description('run the wallet: API and worker (embedded sandbox ledger when LEDGER_URL is unset)')
    .addOption(
      new Option('--role <role>', 'api | worker | all').choices(['api', 'worker', 'all']).default('all'),
    )
    .option('--demo', 'embedded sandbox with demo data, generated secrets in .demo/, a demo key and party')
    .option('--insecure-no-auth', 'serve the API without authentication (development only)')
    .option('--insecure-any-audience', 'with AUTH_JWKS_URL, accept tokens without checking AUTH_AUDIENCE')
    .action(async (o: { role: Role; demo?: boolean; insecureNoAuth?: boolean } & AnyAudience) => {
      const { stop, log, shutdownGraceMs } = await serve({
        env,
        role: o.role,
        demo: !!o.demo,
        insecureNoAuth: !!o.insecureNoAuth,
        insecureAnyAudience: !!o.insecureAnyAudience,
      });
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
        process.on('SIGTERM', onSignal);
        process.on('SIGINT', onSignal);
      });
      // Stopped: leave even if a client library still holds a reconnect timer.
      setTimeout(() => process.exit(), 1_000).unref();
    });
}
