/**
 * `quill-sandbox [--port 7575] [--scan-port 7576] [--host 127.0.0.1] [--demo]
 * [--auth-secret-file F | --auth-secret S | --jwks-url U | --no-auth] [--faults FILE]` (also `quill sandbox …`):
 * the sandbox ledger and scan for other clients, until SIGINT or SIGTERM. Bad options exit 2 with one line.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import type { AuthConfig } from './auth.ts';
import { SandboxUsageError } from './errors.ts';
import type { FaultConfig } from './faults.ts';
import { startAdminApi, startSandbox } from './index.ts';
import { FaultConfigSchema } from './routes/admin.ts';

export { SandboxUsageError };

type Env = Readonly<Record<string, string | undefined>>;

/** `--faults FILE`: a JSON FaultConfig (same as `POST /admin/faults`). */
function faultsFrom(file: string | undefined): FaultConfig | undefined {
  if (file === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new SandboxUsageError(`--faults: cannot read JSON from ${file}`);
  }
  const parsed = FaultConfigSchema.safeParse(json);
  if (!parsed.success)
    throw new SandboxUsageError(
      `--faults: ${parsed.error.issues[0]?.message ?? 'invalid fault configuration'}`,
    );
  return parsed.data;
}

/** `--auth-secret-file FILE`: the secret is the file's content without its trailing newline. */
function secretFrom(file: string): string {
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (e) {
    throw new SandboxUsageError(
      `--auth-secret-file: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/** SANDBOX_AUTH_SECRET, when set (as `quill serve --sandbox` reads it: at least 32 characters). */
function envSecret(env: Env): string | undefined {
  const s = env.SANDBOX_AUTH_SECRET;
  if (s === undefined || s === '') return undefined;
  if (s.length < 32) throw new SandboxUsageError('SANDBOX_AUTH_SECRET: must be at least 32 characters');
  return s;
}

function port(value: string, name: string): number {
  const n = Number(value);
  if (!/^\d{1,5}$/.test(value) || n > 65535)
    throw new SandboxUsageError(`${name} must be a port number (0-65535), got "${value}"`);
  return n;
}

interface Options {
  port: string;
  scanPort: string;
  host: string;
  demo?: boolean;
  authSecret?: string;
  authSecretFile?: string;
  jwksUrl?: string;
  auth: boolean;
  faults?: string;
  adminPort: string;
  hosts?: string;
  maxDeduplicationSeconds?: string;
}

export function sandboxCommand(env: Env = {}, name = 'sandbox'): Command {
  return new Command(name)
    .description('Run the sandbox ledger (JSON Ledger API v2) and scan (activity feed) for other clients')
    .option('--port <port>', 'ledger API port', '7575')
    .option('--scan-port <port>', 'scan (activity feed) port', '7576')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--demo', 'create users, parties, vetted packages and some coin history')
    .option(
      '--auth-secret-file <file>',
      'read the HS256 secret for bearer tokens from this file (default: SANDBOX_AUTH_SECRET or random)',
    )
    .option(
      '--auth-secret <secret>',
      'HS256 secret on the command line: other users see it in ps; prefer SANDBOX_AUTH_SECRET or --auth-secret-file',
    )
    .option('--jwks-url <url>', 'verify RS256/ES256 tokens with this JWKS URL instead')
    .option('--no-auth', 'accept every call without a token (explicit opt-out)')
    .option('--faults <file>', 'JSON fault configuration, as for POST /admin/faults')
    .option(
      '--admin-port <port>',
      "the participant's admin API (gRPC topology services) port; 0 = any free one",
      '0',
    )
    .option('--hosts <names>', 'extra participants, comma-separated names, each on its own free port')
    .option(
      '--max-deduplication-seconds <n>',
      "the participant's max-deduplication-duration in seconds (default 7 days): the period of an execute that " +
        'names none, and how long pruning keeps a deduplication entry',
    )
    .action(async (opts: Options) => run(opts, env));
}

async function run(opts: Options, env: Env): Promise<void> {
  const given = [opts.authSecret, opts.authSecretFile, opts.jwksUrl].filter((o) => o !== undefined);
  if (!opts.auth && given.length > 0)
    throw new SandboxUsageError(
      '--no-auth cannot be combined with --auth-secret, --auth-secret-file or --jwks-url',
    );
  if (given.length > 1)
    throw new SandboxUsageError('use one of --auth-secret, --auth-secret-file and --jwks-url');
  const secret = opts.authSecretFile !== undefined ? secretFrom(opts.authSecretFile) : opts.authSecret;
  if (secret !== undefined && secret.length < 16)
    throw new SandboxUsageError(
      `${opts.authSecretFile !== undefined ? '--auth-secret-file' : '--auth-secret'}: the secret must be at least 16 characters`,
    );
  const faults = faultsFrom(opts.faults);
  const ports = { port: port(opts.port, '--port'), scanPort: port(opts.scanPort, '--scan-port') };
  let auth: AuthConfig;
  if (!opts.auth) auth = 'none';
  else if (opts.jwksUrl) auth = { jwksUrl: opts.jwksUrl };
  else auth = { secret: secret ?? envSecret(env) ?? randomBytes(32).toString('hex') };
  const adminPort = port(opts.adminPort, '--admin-port');
  const hosts = (opts.hosts ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h.length > 0);
  for (const h of hosts) {
    if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(h))
      throw new SandboxUsageError(`--hosts: "${h.slice(0, 40)}" is not a name`);
  }
  const maxDedup = opts.maxDeduplicationSeconds;
  if (maxDedup !== undefined && (!/^\d{1,9}$/.test(maxDedup) || Number(maxDedup) < 1))
    throw new SandboxUsageError(
      `--max-deduplication-seconds must be a whole number of seconds from 1, got "${maxDedup.slice(0, 40)}"`,
    );
  const sandbox = await startSandbox({
    ...ports,
    ...(maxDedup !== undefined ? { ledger: { maxDeduplicationSeconds: Number(maxDedup) } } : {}),
    host: opts.host,
    demo: opts.demo === true,
    auth,
    faults,
    hosts,
  });
  // With auth on, the admin API asks for a token of its own (printed below), as a participant's does.
  const adminToken = auth === 'none' ? undefined : randomBytes(24).toString('hex');
  const admin = await startAdminApi(sandbox.state.topology, {
    port: adminPort,
    participantId: sandbox.state.participantId,
    ...(adminToken ? { token: adminToken } : {}),
  }).catch(async (err) => {
    await sandbox.close();
    throw err;
  });
  const out = process.stdout;
  out.write(`sandbox ledger: ${sandbox.url}  (ready: GET ${sandbox.url}/v2/state/ledger-end)\n`);
  out.write(`sandbox scan:   ${sandbox.scanUrl}/v0/activities\n`);
  out.write(
    `admin API (gRPC topology services, on 127.0.0.1): ${admin.url}${adminToken ? `  (bearer token ${adminToken})` : ''}\n`,
  );
  for (const h of sandbox.hosts) out.write(`host ${h.name}: ${h.url} (${h.participantId})\n`);
  if (auth === 'none') out.write('auth: off (any bearer token is ignored)\n');
  else if ('secret' in auth) {
    out.write(
      `admin token (user participant_admin, 1 h): ${await sandbox.mintToken('participant_admin', { admin: true })}\n`,
    );
    out.write(
      'other tokens: HS256 JWT with {"sub": "<user id>", "scope": "daml_ledger_api"} signed with the auth secret\n',
    );
  } else out.write(`auth: tokens verified with ${auth.jwksUrl}\n`);
  if (opts.demo) out.write('demo users: participant_admin, alice, bob (parties alice::…, bob::…)\n');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await admin.close();
  await sandbox.close();
}

/** Runs the sandbox command line; the exit code (0, 1, or 2 for bad options). */
export async function main(argv: string[], env: Env = process.env, name = 'quill-sandbox'): Promise<number> {
  const cmd = sandboxCommand(env, name)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  try {
    await cmd.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    const usage = err instanceof SandboxUsageError;
    process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return usage ? 2 : 1;
  }
}
