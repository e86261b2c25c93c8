// Environment → typed configuration, validated at start with one clear message per bad value. Each section
// is one zod schema over its variables whose transform output is that section's part of `Config`; a command
// loads only the sections it uses, so an unrelated variable never stops it.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { QuillError } from '@quill/canton/errors';
import { z } from 'zod';
import { type PolicyDocument, PolicyInvalid, parsePolicy } from '../policy/index.ts';
import type { RedisTarget } from '../redis/index.ts';

/** A bad environment: `problems` has one line per bad value (never the secret itself). */
export class ConfigError extends QuillError<'CONFIG'> {
  override readonly name = 'ConfigError';
  readonly problems: readonly string[];
  constructor(problems: string[]) {
    super('CONFIG', `bad configuration: ${problems.join('; ')}`);
    this.problems = problems;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** Whether a variable counts as set: an empty value is the same as an unset one. */
export function envHas(env: Env, name: string): boolean {
  const v = env[name];
  return v !== undefined && v !== '';
}

const port = (fallback: number, min = 1) =>
  z.coerce
    .number({ error: 'must be a port number' })
    .int({ error: 'must be an integer port number' })
    .min(min, { error: `must be between ${min} and 65535` })
    .max(65535, { error: `must be between ${min} and 65535` })
    .default(fallback);
const intIn = (min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: `must be an integer between ${min} and ${max}` })
    .int({ error: `must be an integer between ${min} and ${max}` })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` })
    .default(fallback);
const url = (protocols: string[]) =>
  z
    .string()
    .trim()
    .refine(
      (s) => {
        try {
          return protocols.includes(new URL(s).protocol);
        } catch {
          return false;
        }
      },
      { error: `must be a URL (${protocols.map((p) => p.replace(':', '')).join(' or ')})` },
    );
const optionalText = z
  .string()
  .transform((s) => s.trim())
  .optional()
  .transform((s) => (s ? s : undefined));
const list = z
  .string()
  .optional()
  .transform((s) =>
    (s ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x.length > 0),
  );
const DURATION_UNIT = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
/** A lifetime like 90s, 30m, 24h, 7d, in seconds. */
const duration = (fallback: string) =>
  z
    .string()
    .trim()
    .default(fallback)
    .transform((s, ctx) => {
      const m = /^(\d+)(s|m|h|d)$/.exec(s);
      const n = m ? Number(m[1]) * DURATION_UNIT[m[2] as keyof typeof DURATION_UNIT] : 0;
      if (n <= 0) {
        ctx.addIssue({ code: 'custom', message: 'must be a positive number with s, m, h or d (e.g. 24h)' });
        return z.NEVER;
      }
      return n;
    });
const noTrailingSlash = (s: string) => s.replace(/\/+$/, '');

/** Drops undefined members, so optional fields are absent rather than `undefined` (exactOptionalPropertyTypes). */
function defined<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as never;
}

/** One section: a zod object over its variables; `build` maps them to the section's output, `problem` adds a line. */
function section<S extends z.ZodRawShape, O>(
  shape: S,
  build: (e: z.output<z.ZodObject<S>>, problem: (line: string) => void) => O,
) {
  return z
    .object(shape)
    .transform((e, ctx) =>
      build(e, (line) => ctx.issues.push({ code: 'custom', message: line, input: undefined, path: [] })),
    );
}

function readSecretFile(path: string, name: string, problem: (line: string) => void): string | undefined {
  try {
    const text = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    if (text.length === 0) problem(`${name}: the file ${path} is empty`);
    return text;
  } catch (err) {
    problem(`${name}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
}

const server = section(
  {
    PORT: port(8080, 0), // 0 = any free port
    HOST: z.string().trim().min(1).default('0.0.0.0'),
    SHUTDOWN_TIMEOUT_MS: intIn(0, 600_000, 15_000),
  },
  (e) => ({ port: e.PORT, host: e.HOST, shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS }),
);

/** host:port pairs, comma-separated. */
const hostPorts = z
  .string()
  .optional()
  .transform((s, ctx) => {
    const out: { host: string; port: number }[] = [];
    for (const item of (s ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x.length > 0)) {
      const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/.exec(item);
      const port = Number(m?.[2]);
      if (!m || port < 1 || port > 65535) {
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(item.slice(0, 60))} is not host:port` });
        return z.NEVER;
      }
      out.push({ host: (m[1] as string).replace(/^\[|\]$/g, ''), port });
    }
    return out;
  });

const redis = section(
  {
    REDIS_URL: url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
    REDIS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,40}$/, { error: 'must be 1-40 letters, digits, _ . or -' })
      .default('quill'),
    REDIS_SENTINELS: hostPorts,
    REDIS_SENTINEL_NAME: z.string().trim().min(1).max(100).default('mymaster'),
    REDIS_CLUSTER_NODES: hostPorts,
    REDIS_DOWN_WARN_SECONDS: intIn(1, 3600, 30),
    REDIS_MIN_REPLICAS_ACK: intIn(0, 16, 0),
    REDIS_WAIT_TIMEOUT_MS: intIn(1, 60_000, 1000),
  },
  (e, problem) => {
    if (e.REDIS_SENTINELS.length > 0 && e.REDIS_CLUSTER_NODES.length > 0)
      problem('REDIS_SENTINELS and REDIS_CLUSTER_NODES are both set: choose one topology');
    const cluster = e.REDIS_CLUSTER_NODES.length > 0;
    const target: RedisTarget = {
      url: e.REDIS_URL,
      ...(e.REDIS_SENTINELS.length > 0
        ? { sentinels: e.REDIS_SENTINELS, sentinelName: e.REDIS_SENTINEL_NAME }
        : {}),
      ...(cluster ? { clusterNodes: e.REDIS_CLUSTER_NODES } : {}),
    };
    return {
      redisUrl: e.REDIS_URL,
      redisTarget: target,
      // On a Cluster every key of a deployment carries one hash tag: each Lua script's keys and each BullMQ queue
      // live in one slot, as BullMQ documents for its prefix.
      redisPrefix: cluster ? `{${e.REDIS_PREFIX}}` : e.REDIS_PREFIX,
      redisDownWarnMs: e.REDIS_DOWN_WARN_SECONDS * 1000,
      /** Replicas that must acknowledge a stored submission before it is accepted (WAIT); 0 = no wait. */
      redisReplicasAck: { replicas: e.REDIS_MIN_REPLICAS_ACK, timeoutMs: e.REDIS_WAIT_TIMEOUT_MS },
    };
  },
);

/** Structurally the `LedgerTokenSettings` of src/ledger/token.ts (the ledger folder does not import config). */
type LedgerToken =
  | { static: string }
  | { file: string }
  | {
      oauth: { tokenUrl: string; clientId: string; clientSecret: string; audience?: string; scope?: string };
    };

const ledger = section(
  {
    LEDGER_URL: url(['http:', 'https:']).optional(),
    LEDGER_TOKEN: optionalText,
    LEDGER_TOKEN_FILE: optionalText,
    LEDGER_OAUTH_TOKEN_URL: url(['http:', 'https:']).optional(),
    LEDGER_OAUTH_CLIENT_ID: optionalText,
    LEDGER_OAUTH_CLIENT_SECRET: optionalText,
    LEDGER_OAUTH_AUDIENCE: optionalText,
    LEDGER_OAUTH_SCOPE: optionalText,
    LEDGER_USER_ID: optionalText,
    LEDGER_TIMEOUT_MS: intIn(100, 600_000, 30_000),
  },
  (e, problem) => {
    const sources = [e.LEDGER_TOKEN, e.LEDGER_TOKEN_FILE, e.LEDGER_OAUTH_TOKEN_URL].filter((x) => x);
    if (sources.length > 1)
      problem('LEDGER_TOKEN, LEDGER_TOKEN_FILE and LEDGER_OAUTH_TOKEN_URL: set at most one');
    if (e.LEDGER_OAUTH_TOKEN_URL && !(e.LEDGER_OAUTH_CLIENT_ID && e.LEDGER_OAUTH_CLIENT_SECRET)) {
      problem('LEDGER_OAUTH_TOKEN_URL needs LEDGER_OAUTH_CLIENT_ID and LEDGER_OAUTH_CLIENT_SECRET');
    }
    let ledgerToken: LedgerToken | undefined;
    if (e.LEDGER_TOKEN) ledgerToken = { static: e.LEDGER_TOKEN };
    else if (e.LEDGER_TOKEN_FILE) ledgerToken = { file: e.LEDGER_TOKEN_FILE };
    else if (e.LEDGER_OAUTH_TOKEN_URL && e.LEDGER_OAUTH_CLIENT_ID && e.LEDGER_OAUTH_CLIENT_SECRET) {
      ledgerToken = {
        oauth: {
          tokenUrl: e.LEDGER_OAUTH_TOKEN_URL,
          clientId: e.LEDGER_OAUTH_CLIENT_ID,
          clientSecret: e.LEDGER_OAUTH_CLIENT_SECRET,
          ...defined({ audience: e.LEDGER_OAUTH_AUDIENCE, scope: e.LEDGER_OAUTH_SCOPE }),
        },
      };
    }
    return {
      ...defined({
        ledgerUrl: e.LEDGER_URL ? noTrailingSlash(e.LEDGER_URL) : undefined,
        /** The wallet's own ledger token; absent = no bearer token. */
        ledgerToken,
        ledgerUserId: e.LEDGER_USER_ID,
      }),
      ledgerTimeoutMs: e.LEDGER_TIMEOUT_MS,
    };
  },
);

const scan = section({ SCAN_URL: url(['http:', 'https:']).optional() }, (e) =>
  defined({ scanUrl: e.SCAN_URL ? noTrailingSlash(e.SCAN_URL) : undefined }),
);

const scryptN = z
  .string()
  .trim()
  .refine(
    (s) =>
      /^\d+$/.test(s) && Number(s) >= 2 ** 10 && Number(s) <= 2 ** 20 && (Number(s) & (Number(s) - 1)) === 0,
    {
      error: 'must be a power of two between 2^10 and 2^20',
    },
  )
  .transform(Number)
  .optional();

const keys = section(
  {
    KEYS_DIR: z.string().trim().min(1).default('keys'),
    KEYSTORE_PASSPHRASE: z.string().optional(),
    KEYSTORE_PASSPHRASE_FILE: optionalText,
    KEYSTORE_SCRYPT_N: scryptN,
    PKCS11_MODULE: optionalText,
    PKCS11_TOKEN_LABEL: optionalText,
    PKCS11_SLOT: z.coerce
      .number()
      .int()
      .min(0)
      .max(2 ** 48)
      .optional(),
    PKCS11_PIN: z.string().optional(),
    PKCS11_PIN_FILE: optionalText,
    PKCS11_SESSIONS: intIn(1, 256, 8),
    KEYS_DEFAULT_BACKEND: z.enum(['file', 'pkcs11']).optional(),
  },
  (e, problem) => {
    let pkcs11:
      | { module: string; tokenLabel?: string; slot?: number; pin: string; sessions: number }
      | undefined;
    if (e.PKCS11_MODULE !== undefined) {
      if ((e.PKCS11_TOKEN_LABEL === undefined) === (e.PKCS11_SLOT === undefined)) {
        problem('PKCS11_MODULE needs exactly one of PKCS11_TOKEN_LABEL and PKCS11_SLOT');
      }
      let pin: string | undefined;
      if (e.PKCS11_PIN !== undefined && e.PKCS11_PIN_FILE !== undefined) {
        problem('PKCS11_PIN and PKCS11_PIN_FILE are both set: choose one');
      } else if (e.PKCS11_PIN_FILE !== undefined) {
        pin = readSecretFile(e.PKCS11_PIN_FILE, 'PKCS11_PIN_FILE', problem);
      } else if (e.PKCS11_PIN === undefined || e.PKCS11_PIN === '') {
        problem('PKCS11_MODULE needs PKCS11_PIN or PKCS11_PIN_FILE');
      } else {
        pin = e.PKCS11_PIN;
      }
      pkcs11 = {
        module: e.PKCS11_MODULE,
        ...defined({ tokenLabel: e.PKCS11_TOKEN_LABEL, slot: e.PKCS11_SLOT }),
        pin: pin ?? '',
        sessions: e.PKCS11_SESSIONS,
      };
    } else if (
      [e.PKCS11_TOKEN_LABEL, e.PKCS11_SLOT, e.PKCS11_PIN, e.PKCS11_PIN_FILE].some((v) => v !== undefined)
    ) {
      problem('PKCS11_TOKEN_LABEL, PKCS11_SLOT and PKCS11_PIN need PKCS11_MODULE (the PKCS#11 library path)');
    }
    if (e.KEYS_DEFAULT_BACKEND === 'pkcs11' && !pkcs11)
      problem('KEYS_DEFAULT_BACKEND=pkcs11 needs PKCS11_MODULE');
    let keystorePassphrase: string | undefined;
    if (e.KEYSTORE_PASSPHRASE !== undefined && e.KEYSTORE_PASSPHRASE_FILE !== undefined) {
      problem('KEYSTORE_PASSPHRASE and KEYSTORE_PASSPHRASE_FILE are both set: choose one');
    } else if (e.KEYSTORE_PASSPHRASE_FILE !== undefined) {
      keystorePassphrase = readSecretFile(e.KEYSTORE_PASSPHRASE_FILE, 'KEYSTORE_PASSPHRASE_FILE', problem);
    } else {
      keystorePassphrase = e.KEYSTORE_PASSPHRASE;
    }
    return {
      keysDir: e.KEYS_DIR,
      // Absent when neither variable is set: only commands that unlock keys need it (see requirePassphrase).
      ...defined({ keystorePassphrase, keystoreScryptN: e.KEYSTORE_SCRYPT_N }),
      /** The PKCS#11 key backend, when PKCS11_MODULE is set. */
      ...defined({ pkcs11, defaultKeyBackend: e.KEYS_DEFAULT_BACKEND }),
    };
  },
);

const JWKS_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

const auth = section(
  {
    AUTH_JWT_SECRET: z
      .string()
      .min(32, { error: 'must be at least 32 characters (HS256 needs a strong secret)' })
      .optional(),
    AUTH_JWKS_URL: url(['http:', 'https:']).optional(),
    AUTH_JWT_ALGORITHMS: list,
    AUTH_ISSUER: optionalText,
    AUTH_AUDIENCE: optionalText,
    AUTH_MAX_TOKEN_TTL: duration('24h'),
  },
  (e, problem) => {
    if (e.AUTH_JWT_SECRET !== undefined && e.AUTH_JWKS_URL !== undefined) {
      problem('AUTH_JWT_SECRET and AUTH_JWKS_URL are both set: choose one');
    }
    for (const alg of e.AUTH_JWT_ALGORITHMS) {
      if (!JWKS_ALGORITHMS.includes(alg))
        problem(`AUTH_JWT_ALGORITHMS: ${alg} is not one of ${JWKS_ALGORITHMS.join(', ')}`);
    }
    return {
      auth: {
        ...defined({
          jwtSecret: e.AUTH_JWT_SECRET,
          jwksUrl: e.AUTH_JWKS_URL,
          issuer: e.AUTH_ISSUER,
          audience: e.AUTH_AUDIENCE,
        }),
        maxTokenTtlSeconds: e.AUTH_MAX_TOKEN_TTL,
        algorithms: e.AUTH_JWT_SECRET
          ? ['HS256']
          : e.AUTH_JWT_ALGORITHMS.length
            ? e.AUTH_JWT_ALGORITHMS
            : ['RS256', 'ES256'],
      },
    };
  },
);

const operatorConsole = section(
  {
    CONSOLE_ENABLED: z.enum(['true', 'false'], { error: 'must be true or false' }).default('true'),
    CONSOLE_PUBLIC_URL: url(['http:', 'https:']).optional(),
    CONSOLE_SESSION_IDLE: duration('30m'),
    CONSOLE_SESSION_MAX: duration('12h'),
    CONSOLE_OIDC_ISSUER: url(['http:', 'https:']).optional(),
    CONSOLE_OIDC_CLIENT_ID: optionalText,
    CONSOLE_OIDC_CLIENT_SECRET: optionalText,
    CONSOLE_OIDC_ROLE_CLAIM: z.string().trim().min(1).max(100).default('quill_role'),
    CONSOLE_OIDC_PARTY_CLAIM: z.string().trim().min(1).max(100).default('quill_party'),
    CONSOLE_OIDC_SCOPE: z.string().trim().min(1).max(500).default('openid profile'),
  },
  (e, problem) => {
    const oidcSet = [e.CONSOLE_OIDC_ISSUER, e.CONSOLE_OIDC_CLIENT_ID, e.CONSOLE_OIDC_CLIENT_SECRET].filter(
      (x) => x,
    );
    if (oidcSet.length > 0 && oidcSet.length < 3)
      problem(
        'CONSOLE_OIDC_ISSUER, CONSOLE_OIDC_CLIENT_ID and CONSOLE_OIDC_CLIENT_SECRET: set all three or none',
      );
    if (oidcSet.length === 3 && !e.CONSOLE_PUBLIC_URL)
      problem(
        'CONSOLE_OIDC_ISSUER needs CONSOLE_PUBLIC_URL (the redirect URI is <CONSOLE_PUBLIC_URL>/console/oidc/callback)',
      );
    if (e.CONSOLE_SESSION_IDLE > e.CONSOLE_SESSION_MAX)
      problem('CONSOLE_SESSION_IDLE must not be longer than CONSOLE_SESSION_MAX');
    return {
      console: {
        enabled: e.CONSOLE_ENABLED === 'true',
        ...defined({ publicUrl: e.CONSOLE_PUBLIC_URL ? noTrailingSlash(e.CONSOLE_PUBLIC_URL) : undefined }),
        idleMs: e.CONSOLE_SESSION_IDLE * 1000,
        absoluteMs: e.CONSOLE_SESSION_MAX * 1000,
        ...(e.CONSOLE_OIDC_ISSUER && e.CONSOLE_OIDC_CLIENT_ID && e.CONSOLE_OIDC_CLIENT_SECRET
          ? {
              oidc: {
                issuer: e.CONSOLE_OIDC_ISSUER,
                clientId: e.CONSOLE_OIDC_CLIENT_ID,
                clientSecret: e.CONSOLE_OIDC_CLIENT_SECRET,
                roleClaim: e.CONSOLE_OIDC_ROLE_CLAIM,
                partyClaim: e.CONSOLE_OIDC_PARTY_CLAIM,
                scope: e.CONSOLE_OIDC_SCOPE,
              },
            }
          : {}),
      },
    };
  },
);

const sandbox = section(
  {
    SANDBOX_PORT: port(7575),
    SANDBOX_SCAN_PORT: port(7576),
    SANDBOX_AUTH_SECRET: z.string().min(32, { error: 'must be at least 32 characters' }).optional(),
  },
  (e, problem) => {
    if (e.SANDBOX_PORT === e.SANDBOX_SCAN_PORT) problem('SANDBOX_PORT and SANDBOX_SCAN_PORT must differ');
    return {
      sandbox: {
        port: e.SANDBOX_PORT,
        scanPort: e.SANDBOX_SCAN_PORT,
        ...defined({ authSecret: e.SANDBOX_AUTH_SECRET }),
      },
    };
  },
);

const pipeline = section(
  {
    QUEUE_NAME: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,60}$/, { error: 'must be 1-60 letters, digits, _ . or -' })
      .default('submissions'),
    WORKER_CONCURRENCY: intIn(1, 1000, 64),
    RATE_LIMIT_MAX: intIn(1, 1_000_000, 2000),
    RATE_LIMIT_DURATION_MS: intIn(1, 3_600_000, 1000),
    SUBMIT_MAX_ATTEMPTS: intIn(1, 1000, 12),
    WORKER_LOCK_DURATION_MS: intIn(0, 3_600_000, 0),
    WORKER_STALLED_INTERVAL_MS: intIn(0, 3_600_000, 0),
    SWEEP_INTERVAL_MS: intIn(100, 3_600_000, 10_000),
    LEADER_LEASE_MS: intIn(500, 600_000, 5000),
    RETRY_BASE_DELAY_MS: intIn(1, 600_000, 200),
    RETRY_MAX_DELAY_MS: intIn(1, 3_600_000, 30_000),
    DEDUP_MARGIN_SECONDS: intIn(1, 86_400, 120),
    DEDUP_MAX_SECONDS: intIn(60, 30 * 86_400, 7 * 86_400 - 3600),
    PREPARATION_TIME_TOLERANCE_SECONDS: intIn(1, 30 * 86_400, 86_400),
    SETTLE_GRACE_SECONDS: intIn(0, 86_400, 60),
    BATCH_MAX: intIn(1, 10_000, 100),
    MAX_PREPARED_TRANSACTION_BYTES: intIn(1024, 24 * 1024 * 1024, 8 * 1024 * 1024),
    BATCH_MAX_BYTES: intIn(1024, 32 * 1024 * 1024, 32 * 1024 * 1024),
    ACCEPT_RATE_LIMIT: intIn(0, 1_000_000, 1000),
    ACCEPT_RATE_WINDOW_SECONDS: intIn(1, 3600, 1),
    INSPECT_THREADS: intIn(0, 64, Math.max(1, Math.min(4, availableParallelism() - 1))),
    INSPECT_OFFLOAD_BYTES: intIn(0, 24 * 1024 * 1024, 128 * 1024),
    INSPECT_QUEUE_MAX: intIn(1, 10_000, 32),
    INSPECT_THREAD_MEMORY_MB: intIn(64, 16_384, 1024),
    WAIT_MAX_SECONDS: intIn(0, 3600, 60),
    PAYLOAD_RETENTION_HOURS: intIn(0, 24 * 3650, 168),
    ALLOWED_SYNCHRONIZERS: list,
  },
  (e, problem) => {
    if (e.RETRY_BASE_DELAY_MS > e.RETRY_MAX_DELAY_MS) {
      problem('RETRY_BASE_DELAY_MS must not exceed RETRY_MAX_DELAY_MS');
    }
    return {
      queue: {
        name: e.QUEUE_NAME,
        concurrency: e.WORKER_CONCURRENCY,
        rateLimit: { max: e.RATE_LIMIT_MAX, durationMs: e.RATE_LIMIT_DURATION_MS },
        maxAttempts: e.SUBMIT_MAX_ATTEMPTS,
        /** 0 = derived from LEDGER_TIMEOUT_MS. */
        lockDurationMs: e.WORKER_LOCK_DURATION_MS,
        stalledIntervalMs: e.WORKER_STALLED_INTERVAL_MS,
        sweepIntervalMs: e.SWEEP_INTERVAL_MS,
        /** The leader lease of once-per-deployment work (the recovery sweep): taken over this long after its holder dies. */
        leaderLeaseMs: e.LEADER_LEASE_MS,
        baseDelayMs: e.RETRY_BASE_DELAY_MS,
        maxDelayMs: e.RETRY_MAX_DELAY_MS,
      },
      dedup: { marginSeconds: e.DEDUP_MARGIN_SECONDS, maxSeconds: e.DEDUP_MAX_SECONDS },
      /**
       * When a transaction can no longer commit: `preparationToleranceMs` after its preparation time (the
       * synchronizer's preparationTimeRecordTimeTolerance), and how long past that (clock skew, ingestion lag)
       * a submission with an unknown outcome is still watched before it is called expired.
       */
      commitWindow: {
        preparationToleranceMs: e.PREPARATION_TIME_TOLERANCE_SECONDS * 1000,
        settleGraceMs: e.SETTLE_GRACE_SECONDS * 1000,
      },
      batchMax: e.BATCH_MAX,
      limits: { preparedTransactionBytes: e.MAX_PREPARED_TRANSACTION_BYTES, batchBytes: e.BATCH_MAX_BYTES },
      /** Per token (subject and party); 0 = off. */
      acceptRateLimit: { max: e.ACCEPT_RATE_LIMIT, windowMs: e.ACCEPT_RATE_WINDOW_SECONDS * 1000 },
      /** Decode and hash of transactions of at least `offloadBytes` base64 characters run on `threads` threads (0 = inline). */
      inspect: {
        threads: e.INSPECT_THREADS,
        offloadBytes: e.INSPECT_OFFLOAD_BYTES,
        maxQueued: e.INSPECT_QUEUE_MAX,
        threadMemoryMb: e.INSPECT_THREAD_MEMORY_MB,
      },
      waitMaxSeconds: e.WAIT_MAX_SECONDS,
      /** A final record's prepared transaction and signatures are dropped this long after it became final. */
      payloadRetentionMs: e.PAYLOAD_RETENTION_HOURS * 3_600_000,
      allowedSynchronizers: e.ALLOWED_SYNCHRONIZERS,
    };
  },
);

// Approval policy (issue 15): the document in POLICY_FILE (YAML or JSON), validated at start.
function readPolicyFile(path: string, problem: (line: string) => void): PolicyDocument | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    problem(`POLICY_FILE: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
  try {
    return parsePolicy(text);
  } catch (err) {
    if (!(err instanceof PolicyInvalid)) throw err;
    for (const p of err.problems) problem(`POLICY_FILE: ${p.path || '(document)'}: ${p.message}`);
    return undefined;
  }
}

const policy = section({ POLICY_FILE: optionalText }, (e, problem): { policy?: PolicyDocument } => {
  const doc = e.POLICY_FILE !== undefined ? readPolicyFile(e.POLICY_FILE, problem) : undefined;
  return doc ? { policy: doc } : {};
});

const log = section(
  { LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info') },
  (e) => ({ logLevel: e.LOG_LEVEL }),
);

/** The ledger watcher (worker role): party history index and `transaction.received` / `ledger.gap` events. */
const watcher = section(
  {
    WATCHER_ENABLED: z.enum(['true', 'false']).default('true'),
    WATCHER_PAGE_SIZE: intIn(1, 200, 200),
    WATCHER_IDLE_TIMEOUT_MS: intIn(10, 600_000, 5_000),
    WATCHER_LEASE_MS: intIn(300, 600_000, 10_000),
  },
  (e) => ({
    watcher: {
      enabled: e.WATCHER_ENABLED === 'true',
      pageSize: e.WATCHER_PAGE_SIZE,
      idleTimeoutMs: e.WATCHER_IDLE_TIMEOUT_MS,
      leaseMs: e.WATCHER_LEASE_MS,
    },
  }),
);

/** `quill submit`: where the wallet API is and the bearer token to call it with. */
const client = section(
  {
    QUILL_URL: url(['http:', 'https:']).default('http://127.0.0.1:8080'),
    QUILL_TOKEN: optionalText,
  },
  (e) => ({ walletUrl: noTrailingSlash(e.QUILL_URL), ...defined({ walletToken: e.QUILL_TOKEN }) }),
);

// events, stream and webhooks (issue 14 part B)
const events = section(
  {
    EVENTS_RETENTION_HOURS: intIn(0, 24 * 3650, 168),
    EVENTS_RETENTION_MAX: intIn(0, 1_000_000_000, 1_000_000),
    EVENTS_HEARTBEAT_SECONDS: intIn(1, 3600, 15),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: z.enum(['true', 'false']).default('false'),
    WEBHOOK_TIMEOUT_MS: intIn(100, 120_000, 10_000),
    WEBHOOK_RETRY_BASE_MS: intIn(1, 3_600_000, 1000),
    WEBHOOK_RETRY_MAX_DELAY_MS: intIn(1, 86_400_000, 3_600_000),
    WEBHOOK_RETRY_FOR_SECONDS: intIn(1, 30 * 86_400, 86_400),
    WEBHOOK_SECRET_GRACE_SECONDS: intIn(0, 30 * 86_400, 86_400),
    WEBHOOK_CONCURRENCY: intIn(1, 1000, 16),
  },
  (e, problem) => {
    if (e.WEBHOOK_RETRY_BASE_MS > e.WEBHOOK_RETRY_MAX_DELAY_MS)
      problem('WEBHOOK_RETRY_BASE_MS must not exceed WEBHOOK_RETRY_MAX_DELAY_MS');
    return {
      events: {
        /** Events older than this are trimmed (0 = no age limit). */
        retentionMs: e.EVENTS_RETENTION_HOURS * 3_600_000,
        /** At most this many events are kept (0 = no count limit). */
        retentionMax: e.EVENTS_RETENTION_MAX,
        heartbeatMs: e.EVENTS_HEARTBEAT_SECONDS * 1000,
      },
      webhooks: {
        allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
        timeoutMs: e.WEBHOOK_TIMEOUT_MS,
        retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
        retryMaxDelayMs: e.WEBHOOK_RETRY_MAX_DELAY_MS,
        retryForMs: e.WEBHOOK_RETRY_FOR_SECONDS * 1000,
        secretGraceMs: e.WEBHOOK_SECRET_GRACE_SECONDS * 1000,
        concurrency: e.WEBHOOK_CONCURRENCY,
      },
    };
  },
);

const SECTIONS = {
  server,
  redis,
  ledger,
  scan,
  keys,
  auth,
  console: operatorConsole,
  sandbox,
  pipeline,
  policy,
  log,
  client,
  events,
  watcher,
};
export type SectionName = keyof typeof SECTIONS;
/** What `quill serve` reads: every section but the API client's. */
const WALLET_SECTIONS = [
  'server',
  'redis',
  'ledger',
  'scan',
  'keys',
  'auth',
  'console',
  'sandbox',
  'pipeline',
  'policy',
  'log',
  'events',
  'watcher',
] as const satisfies readonly SectionName[];

// Arrays keep a mutable type: the API's settings types (not ours to change here) take `string[]`.
export type DeepReadonly<T> = T extends (infer E)[]
  ? DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
type Intersect<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
/** The configuration made of the sections `S`; nobody changes a loaded one. */
export type ConfigOf<S extends SectionName> = DeepReadonly<Intersect<z.output<(typeof SECTIONS)[S]>>>;
/** The wallet's whole configuration (`quill serve`). */
export type Config = ConfigOf<(typeof WALLET_SECTIONS)[number]>;
export type LogLevel = Config['logLevel'];

/**
 * Parses the sections a command uses (default: the wallet's); throws ConfigError listing every bad value in
 * them (never the secret itself). Empty variables count as unset.
 */
export function loadConfig(env?: Env): Config;
export function loadConfig<S extends SectionName>(env: Env, sections: readonly S[]): ConfigOf<S>;
export function loadConfig(
  env: Env = process.env,
  sections: readonly SectionName[] = WALLET_SECTIONS,
): unknown {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const name of sections) {
    const schema = SECTIONS[name];
    const raw: Record<string, string | undefined> = {};
    for (const key of Object.keys(schema.in.shape)) raw[key] = envHas(env, key) ? env[key] : undefined;
    const parsed = schema.safeParse(raw);
    if (parsed.success) Object.assign(out, parsed.data);
    else {
      for (const issue of parsed.error.issues) {
        problems.push(issue.path.length > 0 ? `${String(issue.path[0])}: ${issue.message}` : issue.message);
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}

/** The key-store passphrase, for commands that unlock keys. */
export function requirePassphrase(config: { readonly keystorePassphrase?: string }): string {
  if (config.keystorePassphrase === undefined || config.keystorePassphrase === '') {
    throw new ConfigError(['no key-store passphrase: set KEYSTORE_PASSPHRASE or KEYSTORE_PASSPHRASE_FILE']);
  }
  return config.keystorePassphrase;
}
