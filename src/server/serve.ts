// `quill serve`'s composition root: loads the wallet's configuration, builds the parts (embedded sandbox when
// LEDGER_URL is unset, key store, signer, party services, ledger client) and starts the wallet.
import { join } from 'node:path';
import { AuthError, createVerifier, type Verifier } from '../api/index.ts';
import { CommandFailure, UsageError } from '../cli/support.ts';
import { loadConfig } from '../config.ts';
import { ledgerTokenOption, type TokenOption } from '../ledger/index.ts';
import { jsonLog, type Log } from '../log.ts';
import { PartyRegistry } from '../parties/index.ts';
import { ScanClient } from '../scan/index.ts';
import type { Keyring, Signer } from '../signing/index.ts';
import { partyServices } from './adapters.ts';
import { consoleBaseUrl, signInLink } from './console-link.ts';
import { demoEnv, prepareDemo } from './demo.ts';
import { ledgerPort } from './ledger-port.ts';
import { ledgerReads } from './ledger-reads.ts';
import { ledgerClient, openKeyring, signerFromConfig } from './parts.ts';
import { demoRedis } from './private-redis.ts';
import { type Role, startWallet } from './wallet.ts';

export interface ServeOptions {
  /** The environment the configuration is read from (the CLI passes process.env). */
  env: Readonly<Record<string, string | undefined>>;
  role: Role;
  demo?: boolean;
  insecureNoAuth?: boolean;
  /** With AUTH_JWKS_URL and no AUTH_AUDIENCE: accept tokens for any audience (development only). */
  insecureAnyAudience?: boolean;
  /** Print a console sign-in link once started (default; one of `--processes` API processes does). */
  printConsoleLink?: boolean;
}

export interface Serving {
  /** Graceful: HTTP first, then the worker. */
  stop(): Promise<void>;
  log: Log;
  /** How long a stop may take before the process should give up (SHUTDOWN_TIMEOUT_MS + 5 s). */
  shutdownGraceMs: number;
}

/** Starts everything; `stop` stops it all. */
export async function serve(o: ServeOptions): Promise<Serving> {
  const prepared = o.demo ? await demoEnv(o.env) : undefined;
  let config = loadConfig(prepared ? { ...o.env, ...prepared.overrides } : o.env);
  const log = jsonLog(config.logLevel);
  const demo = prepared?.demo;
  if (demo && config.ledgerUrl) throw new UsageError('--demo runs on the embedded sandbox: unset LEDGER_URL');
  const stops: (() => Promise<void>)[] = [];
  if (prepared) {
    // A fresh machine: no Redis yet. The demo starts a private one rather than retrying forever.
    const redis = await demoRedis(config.redisUrl, join(prepared.demo.dir, 'redis'));
    if (redis.started) {
      process.stdout.write(`${redis.started.line}\n`);
      stops.push(redis.started.stop);
      config = loadConfig({ ...o.env, ...prepared.overrides, REDIS_URL: redis.url });
    }
  }

  let auth: Verifier | 'none' = 'none';
  if (o.role !== 'worker') {
    if (config.auth.jwtSecret || config.auth.jwksUrl) {
      try {
        auth = createVerifier({ ...config.auth, anyAudience: !!o.insecureAnyAudience });
      } catch (err) {
        if (err instanceof AuthError && err.code === 'CONFIG')
          throw new UsageError(`refusing to start: ${err.message}`);
        throw err;
      }
      if (config.auth.jwksUrl && !config.auth.audience)
        log(
          'warn',
          '!!! --insecure-any-audience: tokens for any audience of the identity provider are accepted !!!',
        );
    } else if (!o.insecureNoAuth) {
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

  let ledgerUrl = config.ledgerUrl;
  let token: TokenOption | undefined = ledgerTokenOption(config.ledgerToken, {
    timeoutMs: config.ledgerTimeoutMs,
  });
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
      // The embedded ledger enforces the window the wallet assumes, so the two never disagree.
      ledger: {
        preparationTimeToleranceSeconds: config.commitWindow.preparationToleranceMs / 1000,
      },
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
  const client = ledgerClient(config, ledgerUrl, token);

  let keys: Keyring | undefined;
  let parties: ReturnType<typeof partyServices> | undefined;
  let signer: Signer | undefined;
  if (o.role !== 'worker') {
    const keyring = openKeyring(config);
    keys = keyring;
    stops.push(() => keyring.close());
    signer = signerFromConfig(keyring);
    parties = partyServices({
      registry: new PartyRegistry({ dir: config.keysDir }),
      ledger: client,
      signer,
      keys,
      ...(walletUser ? { userId: walletUser } : {}),
    });
  }

  // The activity feed: SCAN_URL, or the embedded sandbox's.
  const scanUrl = config.scanUrl ?? sandbox?.scanUrl;
  let wallet: Awaited<ReturnType<typeof startWallet>>;
  try {
    wallet = await startWallet({
      config,
      role: o.role,
      ledger: ledgerPort(client),
      reads: ledgerReads(
        client,
        scanUrl ? new ScanClient({ baseUrl: scanUrl, timeoutMs: config.ledgerTimeoutMs }) : undefined,
        config.ledgerUserId,
      ),
      watch: {
        ledger: client,
        parties: async () => (await new PartyRegistry({ dir: config.keysDir }).list()).map((r) => r.partyId),
      },
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
  if (wallet.url && o.role !== 'worker')
    log('info', `wallet API on ${wallet.url} (docs ${wallet.url}/docs)`, { pid: process.pid });
  if (
    wallet.port !== undefined &&
    o.role !== 'worker' &&
    o.printConsoleLink !== false &&
    config.console.enabled &&
    config.auth.jwtSecret
  ) {
    // One admin sign-in for whoever started the process (it reads the terminal, so it holds the secret anyway).
    const link = await signInLink(config.auth.jwtSecret, consoleBaseUrl(config, wallet.port), {
      role: 'admin',
      ttlSeconds: 15 * 60,
      subject: 'console-admin',
    });
    process.stdout.write(
      `\nConsole sign-in link (admin, one use, 15 min; more with \`quill console link\`):\n  ${link}\n`,
    );
  }
  if (wallet.url && o.role === 'worker') log('info', `worker probes and metrics on ${wallet.url}`);
  if (o.role !== 'api')
    log('info', `worker on queue ${config.queue.name} (concurrency ${config.queue.concurrency})`);

  if (demo && keys && parties && signer && sandbox && wallet.url) {
    await prepareDemo({ config, demo, keys, parties, client, walletUrl: wallet.url, sandbox, log });
  }
  return {
    stop: async () => {
      for (const s of stops) await s();
    },
    log,
    shutdownGraceMs: config.shutdownTimeoutMs + 5_000,
  };
}
