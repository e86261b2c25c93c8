// Environment → typed configuration, validated once at start with one clear message per bad value.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** A bad environment: every problem on its own line, secrets never echoed. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
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

const EnvSchema = z.object({
  PORT: port(8080, 0), // 0 = any free port
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  REDIS_URL: url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,40}$/, { error: 'must be 1-40 letters, digits, _ . or -' })
    .default('quill'),
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
  SCAN_URL: url(['http:', 'https:']).optional(),
  KEYS_DIR: z.string().trim().min(1).default('keys'),
  KEYSTORE_PASSPHRASE: z.string().optional(),
  KEYSTORE_PASSPHRASE_FILE: optionalText,
  AUTH_JWT_SECRET: z
    .string()
    .min(32, { error: 'must be at least 32 characters (HS256 needs a strong secret)' })
    .optional(),
  AUTH_JWKS_URL: url(['http:', 'https:']).optional(),
  AUTH_JWT_ALGORITHMS: list,
  AUTH_ISSUER: optionalText,
  AUTH_AUDIENCE: optionalText,
  SANDBOX_PORT: port(7575),
  SANDBOX_SCAN_PORT: port(7576),
  SANDBOX_AUTH_SECRET: z.string().min(32, { error: 'must be at least 32 characters' }).optional(),
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
  RETRY_BASE_DELAY_MS: intIn(1, 600_000, 200),
  RETRY_MAX_DELAY_MS: intIn(1, 3_600_000, 30_000),
  DEDUP_MARGIN_SECONDS: intIn(1, 86_400, 120),
  DEDUP_MAX_SECONDS: intIn(60, 30 * 86_400, 7 * 86_400 - 3600),
  PREPARATION_TIME_TOLERANCE_SECONDS: intIn(1, 30 * 86_400, 86_400),
  SETTLE_GRACE_SECONDS: intIn(0, 86_400, 60),
  BATCH_MAX: intIn(1, 10_000, 100),
  WAIT_MAX_SECONDS: intIn(0, 3600, 60),
  ALLOWED_SYNCHRONIZERS: list,
  SHUTDOWN_TIMEOUT_MS: intIn(0, 600_000, 15_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Env = z.infer<typeof EnvSchema>;

export interface LedgerTokenConfig {
  static?: string;
  file?: string;
  oauth?: { tokenUrl: string; clientId: string; clientSecret: string; audience?: string; scope?: string };
}

export interface Config {
  port: number;
  host: string;
  redisUrl: string;
  redisPrefix: string;
  ledgerUrl?: string;
  ledgerToken: LedgerTokenConfig;
  ledgerUserId?: string;
  ledgerTimeoutMs: number;
  scanUrl?: string;
  keysDir: string;
  /** Read lazily by whoever unlocks keys; undefined when neither variable is set. */
  keystorePassphrase?: string;
  auth: {
    jwtSecret?: string;
    jwksUrl?: string;
    algorithms: string[];
    issuer?: string;
    audience?: string;
  };
  sandbox: { port: number; scanPort: number; authSecret?: string };
  queue: {
    name: string;
    concurrency: number;
    rateLimit: { max: number; durationMs: number };
    maxAttempts: number;
    /** 0 = derived from LEDGER_TIMEOUT_MS. */
    lockDurationMs: number;
    stalledIntervalMs: number;
    sweepIntervalMs: number;
    baseDelayMs: number;
    maxDelayMs: number;
  };
  dedup: { marginSeconds: number; maxSeconds: number };
  /**
   * When a transaction can no longer commit: `preparationToleranceMs` after its preparation time (the
   * synchronizer's preparationTimeRecordTimeTolerance), and how long past that (clock skew, ingestion lag)
   * a submission with an unknown outcome is still watched before it is called expired.
   */
  commitWindow: { preparationToleranceMs: number; settleGraceMs: number };
  batchMax: number;
  waitMaxSeconds: number;
  allowedSynchronizers: string[];
  shutdownTimeoutMs: number;
  logLevel: Env['LOG_LEVEL'];
}

function readSecretFile(path: string, name: string, problems: string[]): string | undefined {
  try {
    const text = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    if (text.length === 0) problems.push(`${name}: the file ${path} is empty`);
    return text;
  } catch (err) {
    problems.push(`${name}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
}

/** Parses the environment; throws ConfigError listing every bad value (never the secret itself). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, string | undefined> = {};
  for (const key of Object.keys(EnvSchema.shape)) {
    const v = env[key];
    raw[key] = v === '' ? undefined : v;
  }
  const parsed = EnvSchema.safeParse(raw);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(`${String(issue.path[0] ?? 'environment')}: ${issue.message}`);
    }
    throw new ConfigError(problems);
  }
  const e = parsed.data;

  let keystorePassphrase: string | undefined;
  if (e.KEYSTORE_PASSPHRASE !== undefined && e.KEYSTORE_PASSPHRASE_FILE !== undefined) {
    problems.push('KEYSTORE_PASSPHRASE and KEYSTORE_PASSPHRASE_FILE are both set: choose one');
  } else if (e.KEYSTORE_PASSPHRASE_FILE !== undefined) {
    keystorePassphrase = readSecretFile(e.KEYSTORE_PASSPHRASE_FILE, 'KEYSTORE_PASSPHRASE_FILE', problems);
  } else {
    keystorePassphrase = e.KEYSTORE_PASSPHRASE;
  }

  if (e.AUTH_JWT_SECRET !== undefined && e.AUTH_JWKS_URL !== undefined) {
    problems.push('AUTH_JWT_SECRET and AUTH_JWKS_URL are both set: choose one');
  }
  const jwksAlgs = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
  for (const alg of e.AUTH_JWT_ALGORITHMS) {
    if (!jwksAlgs.includes(alg))
      problems.push(`AUTH_JWT_ALGORITHMS: ${alg} is not one of ${jwksAlgs.join(', ')}`);
  }

  const ledgerToken: LedgerTokenConfig = {};
  const tokenSources = [e.LEDGER_TOKEN, e.LEDGER_TOKEN_FILE, e.LEDGER_OAUTH_TOKEN_URL].filter(
    (x) => x !== undefined,
  );
  if (tokenSources.length > 1) {
    problems.push('LEDGER_TOKEN, LEDGER_TOKEN_FILE and LEDGER_OAUTH_TOKEN_URL: set at most one');
  }
  if (e.LEDGER_TOKEN) ledgerToken.static = e.LEDGER_TOKEN;
  if (e.LEDGER_TOKEN_FILE) ledgerToken.file = e.LEDGER_TOKEN_FILE;
  if (e.LEDGER_OAUTH_TOKEN_URL) {
    if (!e.LEDGER_OAUTH_CLIENT_ID || !e.LEDGER_OAUTH_CLIENT_SECRET) {
      problems.push('LEDGER_OAUTH_TOKEN_URL needs LEDGER_OAUTH_CLIENT_ID and LEDGER_OAUTH_CLIENT_SECRET');
    } else {
      ledgerToken.oauth = {
        tokenUrl: e.LEDGER_OAUTH_TOKEN_URL,
        clientId: e.LEDGER_OAUTH_CLIENT_ID,
        clientSecret: e.LEDGER_OAUTH_CLIENT_SECRET,
        ...(e.LEDGER_OAUTH_AUDIENCE ? { audience: e.LEDGER_OAUTH_AUDIENCE } : {}),
        ...(e.LEDGER_OAUTH_SCOPE ? { scope: e.LEDGER_OAUTH_SCOPE } : {}),
      };
    }
  }
  if (e.SANDBOX_PORT === e.SANDBOX_SCAN_PORT) problems.push('SANDBOX_PORT and SANDBOX_SCAN_PORT must differ');
  if (e.RETRY_BASE_DELAY_MS > e.RETRY_MAX_DELAY_MS) {
    problems.push('RETRY_BASE_DELAY_MS must not exceed RETRY_MAX_DELAY_MS');
  }
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    port: e.PORT,
    host: e.HOST,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    ...(e.LEDGER_URL ? { ledgerUrl: e.LEDGER_URL.replace(/\/+$/, '') } : {}),
    ledgerToken,
    ...(e.LEDGER_USER_ID ? { ledgerUserId: e.LEDGER_USER_ID } : {}),
    ledgerTimeoutMs: e.LEDGER_TIMEOUT_MS,
    ...(e.SCAN_URL ? { scanUrl: e.SCAN_URL.replace(/\/+$/, '') } : {}),
    keysDir: e.KEYS_DIR,
    ...(keystorePassphrase !== undefined ? { keystorePassphrase } : {}),
    auth: {
      ...(e.AUTH_JWT_SECRET ? { jwtSecret: e.AUTH_JWT_SECRET } : {}),
      ...(e.AUTH_JWKS_URL ? { jwksUrl: e.AUTH_JWKS_URL } : {}),
      algorithms: e.AUTH_JWT_SECRET
        ? ['HS256']
        : e.AUTH_JWT_ALGORITHMS.length
          ? e.AUTH_JWT_ALGORITHMS
          : ['RS256', 'ES256'],
      ...(e.AUTH_ISSUER ? { issuer: e.AUTH_ISSUER } : {}),
      ...(e.AUTH_AUDIENCE ? { audience: e.AUTH_AUDIENCE } : {}),
    },
    sandbox: {
      port: e.SANDBOX_PORT,
      scanPort: e.SANDBOX_SCAN_PORT,
      ...(e.SANDBOX_AUTH_SECRET ? { authSecret: e.SANDBOX_AUTH_SECRET } : {}),
    },
    queue: {
      name: e.QUEUE_NAME,
      concurrency: e.WORKER_CONCURRENCY,
      rateLimit: { max: e.RATE_LIMIT_MAX, durationMs: e.RATE_LIMIT_DURATION_MS },
      maxAttempts: e.SUBMIT_MAX_ATTEMPTS,
      lockDurationMs: e.WORKER_LOCK_DURATION_MS,
      stalledIntervalMs: e.WORKER_STALLED_INTERVAL_MS,
      sweepIntervalMs: e.SWEEP_INTERVAL_MS,
      baseDelayMs: e.RETRY_BASE_DELAY_MS,
      maxDelayMs: e.RETRY_MAX_DELAY_MS,
    },
    dedup: { marginSeconds: e.DEDUP_MARGIN_SECONDS, maxSeconds: e.DEDUP_MAX_SECONDS },
    commitWindow: {
      preparationToleranceMs: e.PREPARATION_TIME_TOLERANCE_SECONDS * 1000,
      settleGraceMs: e.SETTLE_GRACE_SECONDS * 1000,
    },
    batchMax: e.BATCH_MAX,
    waitMaxSeconds: e.WAIT_MAX_SECONDS,
    allowedSynchronizers: e.ALLOWED_SYNCHRONIZERS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
  };
}
