/**
 * The sandbox: an in-memory participant (JSON Ledger API v2) and scan (activity feed) served in-process,
 * faithful to the real participant's shapes, rules, status codes and error codes, verifying external
 * signatures for real, and able to misbehave on demand. `startSandbox` is what `quill serve --demo|--sandbox`
 * starts, what end-to-end tests run against, and what `quill-sandbox` (`quill sandbox`) offers other clients.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { ledgerApp } from './app.ts';
import { type AuthConfig, Authenticator } from './auth.ts';
import { demoLedgerOptions, runDemo } from './demo.ts';
import { type FaultConfig, Faults } from './faults.ts';
import { bootstrapCoin } from './internal.ts';
import { fingerprintOf } from './keys.ts';
import { bootstrapRegistries } from './registry/bootstrap.ts';
import { registryByKey } from './registry/registries.ts';
import { DEFAULT_OPTIONS, type SandboxOptions, type Services } from './routes/http.ts';
import { registryBaseUrl } from './routes/registry.ts';
import { scanApp } from './routes/scan.ts';
import type { StreamForms } from './routes/stream.ts';
import { serveWebSockets } from './routes/websocket.ts';
import { SandboxState, type SandboxStateOptions } from './state/index.ts';
import { uploadTokenStandardApis } from './token-standard.ts';

export { type AdminApiServer, startAdminApi } from './admin/grpc.ts';
export type { AuthConfig } from './auth.ts';
export { COIN_MODULE, COIN_PACKAGE } from './coin.ts';
export { SandboxError } from './errors.ts';
export type { FaultConfig, FaultKind, FaultRule, PrepareTamper } from './faults.ts';
export { bootstrapCoin, mint, submitInternal } from './internal.ts';
export { fingerprintOf } from './keys.ts';
export { SANDBOX_RECOGNIZERS } from './recognizers.ts';
export { grantPreapproval, mintHolding } from './registry/bootstrap.ts';
export { SandboxState } from './state/index.ts';
export type {
  AddedTransaction,
  StoredTopologyTransaction,
  TopologySignature,
  TopologyStore,
} from './topology/store.ts';

export interface SandboxConfig {
  /** 0 picks a free port; default 7575 / 7576. */
  port?: number;
  scanPort?: number;
  host?: string;
  /** HS256 secret, a JWKS URL, or 'none'. Default: a random secret (tokens via `mintToken`). */
  auth?: AuthConfig;
  demo?: boolean;
  faults?: FaultConfig;
  /** Ledger options; with `demo`, they add to the demo's own (its synchronizers and other participants). */
  ledger?: SandboxStateOptions;
  options?: Partial<SandboxOptions>;
  /**
   * Names of extra participants on the same synchronizers, each served on its own port (same state, users and
   * tokens) and answering as itself: `participant-id`, allocate's approval, the parties it hosts. Its uid is
   * `name::<fingerprint of its own Ed25519 namespace key>`. Unlike `ledger.otherParticipants` (known members
   * without an API, whose approval is assumed), a host approves a PartyToParticipant only when allocate or
   * Authorize is called on it.
   */
  hosts?: string[];
}

export interface SandboxHost {
  name: string;
  participantId: string;
  url: string;
}

export interface SandboxRegistry {
  admin: string;
  instrumentId: { admin: string; id: string };
  registryUrl: string;
  /** `#package-name` of the registry's templates. */
  packageName: string;
}

export interface Sandbox {
  url: string;
  /** The extra participants (`SandboxConfig.hosts`), in the order given. */
  hosts: SandboxHost[];
  scanUrl: string;
  state: SandboxState;
  faults: Faults;
  /**
   * The token registries: admin party, instrument id and the base URL of the registry's off-ledger API (clients
   * append `/registry/…`; routes/registry.ts says which URL reaches which registry).
   */
  registries: Record<'amulet' | 'usdq', SandboxRegistry>;
  /** The ledger app's routes (method and Hono path), to check them against the endpoint declarations. */
  routes: readonly { method: string; path: string }[];
  close(): Promise<void>;
  /** An HS256 user token; `admin` creates the user if needed and grants ParticipantAdmin. */
  mintToken(userId: string, opts?: { admin?: boolean; ttlSeconds?: number }): Promise<string>;
}

/**
 * Idle kept-alive connections stay open `idleMs` (`SandboxOptions.idleTimeoutMs`), as the participant's HTTP server
 * (pekko-http's default `idle-timeout = 60 s`) keeps them: clients close idle sockets first, never racing a server
 * that closed them.
 */
function listen(
  fetch: (req: Request, env: never) => Response | Promise<Response>,
  port: number,
  host: string,
  idleMs = DEFAULT_OPTIONS.idleTimeoutMs,
) {
  return new Promise<{ server: ReturnType<typeof serve>; port: number }>((resolve, reject) => {
    const server = serve({ fetch: fetch as never, port, hostname: host }, (info: AddressInfo) =>
      resolve({ server, port: info.port }),
    );
    const node = server as unknown as { keepAliveTimeout: number; headersTimeout: number };
    node.keepAliveTimeout = idleMs;
    node.headersTimeout = idleMs + 1000;
    server.once('error', reject);
  });
}

function closeServer(server: ReturnType<typeof serve>): Promise<void> {
  return new Promise((resolve) => {
    const s = server as unknown as { closeAllConnections?: () => void; close: (cb: () => void) => void };
    s.close(() => resolve());
    s.closeAllConnections?.();
  });
}

export async function startSandbox(config: SandboxConfig = {}): Promise<Sandbox> {
  const host = config.host ?? '127.0.0.1';
  // `ledger` adds to the demo's options (its synchronizers and participants), so `--demo` with any option is the demo.
  const state = new SandboxState({ ...(config.demo ? demoLedgerOptions() : {}), ...config.ledger });
  const auth = new Authenticator(config.auth ?? { secret: randomBytes(32).toString('hex') }, state);
  const faults = new Faults(config.faults);
  const services: Services = {
    state,
    auth,
    faults,
    options: { ...DEFAULT_OPTIONS, ...config.options },
  };
  state.users.create({ id: 'participant_admin' }, [{ kind: 'ParticipantAdmin' }]);
  bootstrapCoin(state);
  uploadTokenStandardApis(state);
  bootstrapRegistries(state);
  if (config.demo) runDemo(state);
  const streams: StreamForms = new Map();
  const app = ledgerApp(services, streams);
  const ledger = await listen(app.fetch, config.port ?? 7575, host, services.options.idleTimeoutMs);
  const sockets = serveWebSockets(ledger.server as Server, services, streams, (req, env) =>
    app.fetch(req, env as never),
  );
  let scan: Awaited<ReturnType<typeof listen>>;
  try {
    scan = await listen(scanApp(state).fetch, config.scanPort ?? 7576, host);
  } catch (e) {
    sockets.close();
    await closeServer(ledger.server);
    throw e;
  }
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${ledger.port}`;
  const extra: { host: SandboxHost; server: ReturnType<typeof serve> }[] = [];
  try {
    for (const name of config.hosts ?? []) {
      const { publicKey } = generateKeyPairSync('ed25519');
      const raw = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' })).slice(12);
      const participantId = `${name}::${fingerprintOf(raw)}`;
      state.addHost(participantId);
      const hostApp = ledgerApp({ ...services, participantId });
      const listener = await listen(hostApp.fetch, 0, host, services.options.idleTimeoutMs);
      extra.push({
        host: { name, participantId, url: `http://${urlHost}:${listener.port}` },
        server: listener.server,
      });
    }
  } catch (e) {
    sockets.close();
    await Promise.all([ledger.server, scan.server, ...extra.map((x) => x.server)].map(closeServer));
    throw e;
  }
  const registry = (key: 'amulet' | 'usdq'): SandboxRegistry => {
    const reg = registryByKey(key)!;
    const admin = reg.admin(state);
    return {
      admin,
      instrumentId: { admin, id: reg.instrument.id },
      registryUrl: registryBaseUrl(url, reg, admin),
      packageName: reg.packageName,
    };
  };
  return {
    url,
    hosts: extra.map((x) => x.host),
    registries: { amulet: registry('amulet'), usdq: registry('usdq') },
    scanUrl: `http://${urlHost}:${scan.port}`,
    state,
    faults,
    routes: app.routes.map((r) => ({ method: r.method, path: r.path })),
    async close() {
      faults.setPaused(false);
      sockets.close();
      await Promise.all([ledger.server, scan.server, ...extra.map((x) => x.server)].map(closeServer));
    },
    async mintToken(userId, opts = {}) {
      if (!state.users.get(userId)) state.users.create({ id: userId }, []);
      if (opts.admin) state.users.grant(userId, [{ kind: 'ParticipantAdmin' }]);
      return auth.mint(userId, opts.ttlSeconds);
    },
  };
}
