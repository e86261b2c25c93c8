// `quill serve`: API and/or worker, on a real participant (LEDGER_URL) or the embedded sandbox.
import { Command, Option } from 'commander';
import { createVerifier, type Verifier } from '../api/index.ts';
import { CommandFailure, UsageError } from '../cli/support.ts';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { jsonLog, type Log, noLog } from '../log.ts';
import { PartyRegistry } from '../parties/index.ts';
import { KeyStore, LocalSigner } from '../signing/index.ts';
import { partyServices } from './adapters.ts';
import { demoSecrets, prepareDemo } from './demo.ts';
import { ledgerClient, ledgerPort, ledgerTokenProvider } from './ledger-port.ts';
import { type Role, startWallet } from './wallet.ts';

export interface ServeOptions {
  role: Role;
  demo?: boolean;
  insecureNoAuth?: boolean;
}

/** Set by `serve` once LOG_LEVEL is read; the signal handlers use it too. */
let log: Log = noLog;

export function serveCommand(): Command {
  return new Command('serve')
    .description('run the wallet: API and worker (embedded sandbox ledger when LEDGER_URL is unset)')
    .addOption(
      new Option('--role <role>', 'api | worker | all').choices(['api', 'worker', 'all']).default('all'),
    )
    .option('--demo', 'embedded sandbox with demo data, generated secrets in .demo/, a demo key and party')
    .option('--insecure-no-auth', 'serve the API without authentication (development only)')
    .action(async (o: { role: Role; demo?: boolean; insecureNoAuth?: boolean }) => {
      const stop = await serve({ role: o.role, demo: !!o.demo, insecureNoAuth: !!o.insecureNoAuth });
      // Graceful shutdown always ends: jobs in flight get SHUTDOWN_TIMEOUT_MS, then the process exits even if
      // a connection (an unreachable Redis, say) would keep it alive. A second signal exits at once.
      const graceMs = readConfig().shutdownTimeoutMs + 5_000;
      await new Promise<void>((resolve) => {
        const onSignal = (sig: string) => {
          log('info', `${sig}: shutting down`);
          process.off('SIGTERM', onSignal);
          process.off('SIGINT', onSignal);
          process.once('SIGTERM', () => process.exit(1));
          process.once('SIGINT', () => process.exit(1));
          setTimeout(() => {
            log('error', `shutdown did not finish within ${graceMs} ms: exiting`);
            process.exit(1);
          }, graceMs).unref();
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

function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(`bad configuration: ${err.problems.join('; ')}`);
    throw err;
  }
}

/** Starts everything and returns the function that stops it all (graceful: HTTP first, then the worker). */
export async function serve(o: ServeOptions): Promise<() => Promise<void>> {
  const config = readConfig();
  log = jsonLog(config.logLevel);
  const demo = o.demo ? await demoSecrets(config) : undefined;
  if (demo && config.ledgerUrl) throw new UsageError('--demo runs on the embedded sandbox: unset LEDGER_URL');

  let auth: Verifier | 'none' = 'none';
  if (o.role !== 'worker') {
    if (config.auth.jwtSecret || config.auth.jwksUrl) auth = createVerifier(config.auth);
    else if (!o.insecureNoAuth) {
      throw new UsageError(
        'refusing to start without AUTH_JWT_SECRET or AUTH_JWKS_URL (or --insecure-no-auth)',
      );
    } else {
      log(
        'warn',
        '!!! --insecure-no-auth: the wallet API accepts ANY caller as admin; never do this outside development !!!',
      );
    }
  }

  const stops: (() => Promise<void>)[] = [];
  let ledgerUrl = config.ledgerUrl;
  let token = ledgerTokenProvider(config);
  // The ledger user the wallet acts as: onboarding grants it CanActAs for each new party.
  let walletUser = config.ledgerUserId;
  let sandbox:
    | {
        url: string;
        scanUrl: string;
        mintToken: (u: string, opts?: { admin?: boolean }) => Promise<string> | string;
        close(): Promise<void>;
      }
    | undefined;
  if (!ledgerUrl) {
    if (o.role !== 'all')
      throw new UsageError(
        '--role api|worker needs LEDGER_URL (the embedded sandbox runs only with --role all)',
      );
    const { startSandbox } = await import('../sandbox/index.ts');
    const secret = config.sandbox.authSecret;
    const sb = await startSandbox({
      port: config.sandbox.port,
      scanPort: config.sandbox.scanPort,
      host: '127.0.0.1',
      auth: secret ? { secret } : 'none',
      demo: !!o.demo,
    });
    sandbox = sb as unknown as NonNullable<typeof sandbox>;
    stops.push(() => sb.close());
    ledgerUrl = sb.url;
    if (secret) {
      walletUser = config.ledgerUserId ?? 'quill';
      token = await sb.mintToken(walletUser, { admin: true });
    }
    log('info', `embedded sandbox ledger on ${sb.url}, activity feed on ${sb.scanUrl}`);
  }
  if (!ledgerUrl) throw new CommandFailure('no ledger URL');
  const client = ledgerClient(ledgerUrl, token, config.ledgerTimeoutMs);

  let keys: KeyStore | undefined;
  let parties: ReturnType<typeof partyServices> | undefined;
  let signer: LocalSigner | undefined;
  if (o.role !== 'worker') {
    if (!config.keystorePassphrase) {
      throw new UsageError('KEYSTORE_PASSPHRASE or KEYSTORE_PASSPHRASE_FILE is needed to unlock the keys');
    }
    const n = process.env.KEYSTORE_SCRYPT_N?.trim();
    if (n && !/^\d+$/.test(n)) throw new UsageError('KEYSTORE_SCRYPT_N must be a power of two');
    try {
      keys = new KeyStore({
        dir: config.keysDir,
        passphrase: config.keystorePassphrase,
        ...(n ? { scrypt: { N: Number(n) } } : {}),
      });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    signer = new LocalSigner(keys);
    parties = partyServices({
      registry: new PartyRegistry({ dir: config.keysDir }),
      ledger: client,
      signer,
      keys,
      ...(walletUser ? { userId: walletUser } : {}),
    });
  }

  let wallet: Awaited<ReturnType<typeof startWallet>>;
  try {
    wallet = await startWallet({
      config,
      role: o.role,
      ledger: ledgerPort(client),
      auth,
      ...(keys ? { keys } : {}),
      ...(signer ? { signer } : {}),
      ...(parties ? { parties } : {}),
      log,
    });
  } catch (err) {
    for (const s of stops) await s().catch(() => {});
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new CommandFailure(`port ${config.port} is already in use (set PORT)`);
    throw err;
  }
  stops.unshift(() => wallet.close());
  if (wallet.url && o.role !== 'worker') log('info', `wallet API on ${wallet.url} (docs ${wallet.url}/docs)`);
  if (wallet.url && o.role === 'worker') log('info', `worker probes and metrics on ${wallet.url}`);
  if (o.role !== 'api')
    log('info', `worker on queue ${config.queue.name} (concurrency ${config.queue.concurrency})`);

  if (demo && keys && parties && signer && sandbox && wallet.url) {
    await prepareDemo({ config, demo, keys, parties, client, walletUrl: wallet.url, sandbox, log });
  }
  return async () => {
    for (const s of stops) await s();
  };
}
