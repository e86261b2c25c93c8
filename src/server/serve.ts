// `quill serve`'s composition root: loads the configuration, builds the parts (auth, ledger client, key ring,
// signer, party services, the asset recognizers) and starts the wallet. The ledger is LEDGER_URL, or the embedded
// sandbox that the development composition (src/dev, `--demo`/`--sandbox`) started and hands over; with neither,
// it refuses to start.
import { TopologyAdminClient } from '@quill/canton/admin';
import { ledgerTokenOption, type TokenOption } from '@quill/canton/ledger';
import { ScanClient } from '@quill/canton/scan';
import { ledgerReads } from '../api/index.ts';
import { AuthError, createVerifier, type Verifier } from '../auth/index.ts';
import { type Config, loadConfig } from '../config/index.ts';
import { CommandFailure, UsageError } from '../errors.ts';
import { jsonLog, type Log } from '../log.ts';
import { PartyRegistry } from '../parties/index.ts';
import type { AssetRecognizers } from '../policy/index.ts';
import type { Keyring, Signer } from '../signing/index.ts';
import { ledgerPort } from '../submissions/index.ts';
import { partyServices } from './adapters.ts';
import { checkAuditKey, ledgerClient, openKeyring, resolveLedgerUser, signerFromConfig } from './parts.ts';
import { startTracing } from './tracing.ts';
import { type Role, startWallet } from './wallet.ts';

/** A ledger started in this process by src/dev (the embedded sandbox), used instead of LEDGER_URL. */
export interface EmbeddedLedger {
  url: string;
  scanUrl: string;
  /** The wallet's ledger token, when the embedded ledger checks tokens. */
  token?: string;
  /** The ledger user the wallet acts as (it has no token naming one when ledger auth is off). */
  userId?: string;
  /** Its registries' holding recognizers (the sandbox's `{holdings}` table), tried before the built-in ones. */
  recognizers: AssetRecognizers;
  /** Its token registries' base URLs by admin party (TOKEN_REGISTRY_URLS entries win). */
  registries?: Readonly<Record<string, string>>;
  /** Its other hosting participants (LEDGER_HOSTS entries win) and its admin API (unless LEDGER_ADMIN_URL). */
  hosts?: readonly { name: string; url: string }[];
  admin?: { url: string; token?: string };
}

export interface ServeOptions {
  /** The environment the configuration is read from (the CLI passes process.env). */
  env: Readonly<Record<string, string | undefined>>;
  role: Role;
  insecureNoAuth?: boolean;
  /** With AUTH_JWKS_URL and no AUTH_AUDIENCE: accept tokens for any audience (development only). */
  insecureAnyAudience?: boolean;
  embedded?: EmbeddedLedger;
}

export interface Serving {
  /** Graceful: HTTP first, then the worker. */
  stop(): Promise<void>;
  log: Log;
  config: Config;
  /** The API (or a worker's probes), once listening. */
  url?: string;
  port?: number;
  /** How long a stop may take before the process should give up (SHUTDOWN_TIMEOUT_MS + 5 s). */
  shutdownGraceMs: number;
}

export const NO_LEDGER =
  'LEDGER_URL is not set: point it at the participant’s JSON Ledger API, or run `quill serve --demo` (or --sandbox) for the embedded sandbox';

function verifier(config: Config, o: ServeOptions, log: Log): Verifier | 'none' {
  if (o.role === 'worker') return 'none';
  if (config.auth.jwtSecret || config.auth.jwksUrl) {
    let auth: Verifier;
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
    return auth;
  }
  if (!o.insecureNoAuth)
    throw new UsageError(
      'refusing to start without AUTH_JWT_SECRET or AUTH_JWKS_URL (or --insecure-no-auth)',
    );
  log(
    'warn',
    '!!! --insecure-no-auth: the wallet API accepts ANY caller as admin; never do this outside development !!!',
  );
  return 'none';
}

/** Starts everything; `stop` stops it all. */
export async function serve(o: ServeOptions): Promise<Serving> {
  const loaded = loadConfig(o.env);
  const ledgerUrl = o.embedded?.url ?? loaded.ledgerUrl;
  if (!ledgerUrl) throw new UsageError(NO_LEDGER);
  const log = jsonLog(loaded.logLevel);
  const auth = verifier(loaded, o, log);
  const token: TokenOption | undefined = o.embedded
    ? o.embedded.token
    : ledgerTokenOption(loaded.ledgerToken, { timeoutMs: loaded.ledgerTimeoutMs });
  const client = ledgerClient(loaded, ledgerUrl, token);
  // The parties the ledger watcher follows: one registry, so its listing is cached between pages.
  const watched = new PartyRegistry({ dir: loaded.keysDir });
  // The ledger user the wallet executes as (the userId the API records on each submission; onboarding grants it
  // CanActAs for each new party): LEDGER_USER_ID, or the user the ledger token names; known before the API
  // starts. A worker executes as each record says and needs none.
  const configured = o.embedded?.userId ?? loaded.ledgerUserId;
  const walletUser =
    o.role === 'worker'
      ? configured
      : await resolveLedgerUser({ configured, client, hasToken: token !== undefined, log });
  const config: Config = {
    ...loaded,
    ...(walletUser ? { ledgerUserId: walletUser } : {}),
    intents: { ...loaded.intents, registries: { ...o.embedded?.registries, ...loaded.intents.registries } },
  };
  // Holding recognizers, first per template wins: RECOGNIZERS_FILE, the embedded ledger's (the wallet adds the
  // built-in ones after them).
  const recognizers: AssetRecognizers = {
    holdings: [...config.recognizers, ...(o.embedded?.recognizers.holdings ?? [])],
  };

  const stops: (() => Promise<void>)[] = [];
  // OTEL_* (src/server/tracing.ts): off unless asked for; stopped last, after the spans of the shutdown.
  const tracing = startTracing(o.env, log);
  stops.push(() => tracing.shutdown());
  let keys: Keyring | undefined;
  let signer: Signer | undefined;
  let parties: ReturnType<typeof partyServices> | undefined;
  // The worker signs audit checkpoints (AUDIT_KEY) with the same key ring the API signs with.
  const auditing = o.role !== 'api' && config.auditCheckpoints.key !== undefined;
  if (o.role !== 'worker' || auditing) {
    const keyring = openKeyring(config);
    keys = keyring;
    stops.push(() => keyring.close());
  }
  if (auditing && keys) {
    try {
      await checkAuditKey(keys, config);
    } catch (err) {
      for (const s of stops) await s().catch(() => {});
      throw err;
    }
  }
  if (o.role !== 'worker' && keys) {
    signer = signerFromConfig(keys);
    const hosts = new Map(
      [...(o.embedded?.hosts ?? []), ...config.ledgerHosts].map((h) => [
        h.name,
        ledgerClient(config, h.url, token),
      ]),
    );
    const adminApi: { url: string; token?: string; tlsCaPem?: string } | undefined =
      config.ledgerAdmin ?? o.embedded?.admin;
    const admin = adminApi
      ? new TopologyAdminClient({
          url: adminApi.url,
          ...(adminApi.token ? { token: adminApi.token } : {}),
          ...(adminApi.tlsCaPem ? { tlsCaPem: new Uint8Array(Buffer.from(adminApi.tlsCaPem)) } : {}),
        })
      : undefined;
    if (admin) stops.push(async () => admin.close());
    parties = partyServices({
      registry: new PartyRegistry({ dir: config.keysDir }),
      ledger: client,
      signer,
      keys,
      hosts,
      allocationTimeoutMs: config.partyAllocationTimeoutMs,
      ...(admin ? { admin } : {}),
      ...(walletUser ? { userId: walletUser } : {}),
    });
  }

  // The activity feed: SCAN_URL, or the embedded sandbox's.
  const scanUrl = config.scanUrl ?? o.embedded?.scanUrl;
  let wallet: Awaited<ReturnType<typeof startWallet>>;
  try {
    wallet = await startWallet({
      config,
      role: o.role,
      ledger: ledgerPort(client),
      reads: ledgerReads(
        client,
        scanUrl ? new ScanClient({ baseUrl: scanUrl, timeoutMs: config.ledgerTimeoutMs }) : undefined,
        walletUser,
      ),
      watch: {
        ledger: client,
        parties: () => watched.partyIds(),
      },
      recognizers,
      auth,
      ...(keys && o.role !== 'worker' ? { keys } : {}),
      ...(keys && auditing ? { auditSigner: keys } : {}),
      ...(signer ? { signer } : {}),
      ...(parties ? { parties } : {}),
      log,
      // A newer stored layout found once Redis answered (after start): this release must not go on.
      fatal: (err) => {
        process.stderr.write(`quill: ${err.message}\n`);
        process.exit(1);
      },
    });
  } catch (err) {
    for (const s of stops) await s().catch(() => {});
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new CommandFailure(`port ${config.port} is already in use (set PORT)`);
    throw err;
  }
  stops.unshift(() => wallet.close());
  if (wallet.url && o.role !== 'worker')
    log('info', `wallet API on ${wallet.url} (docs ${wallet.url}/docs)`, { pid: process.pid });
  if (wallet.url && o.role === 'worker') log('info', `worker probes and metrics on ${wallet.url}`);
  if (o.role !== 'api')
    log('info', `worker on queue ${config.queue.name} (concurrency ${config.queue.concurrency})`);
  return {
    stop: async () => {
      for (const s of stops) await s();
    },
    log,
    config,
    ...(wallet.url ? { url: wallet.url } : {}),
    ...(wallet.port !== undefined ? { port: wallet.port } : {}),
    shutdownGraceMs: config.shutdownTimeoutMs + 5_000,
  };
}
