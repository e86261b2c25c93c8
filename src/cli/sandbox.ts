/**
 * `quill sandbox [--port 7575] [--scan-port 7576] [--host 127.0.0.1] [--demo]
 * [--auth-secret-file F | --auth-secret S | --jwks-url U | --no-auth]`.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { type AuthConfig, type FaultConfig, startSandbox } from '../sandbox/index.ts';
// The schema `POST /admin/faults` validates with (not part of the sandbox's index).
import { FaultConfigSchema } from '../sandbox/routes/admin.ts';
import { type CliEnv, UsageError } from './support.ts';

/** `--faults FILE`: a JSON FaultConfig (same as `POST /admin/faults`). */
function faultsFrom(file: string | undefined): FaultConfig | undefined {
  if (file === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new UsageError(`--faults: cannot read JSON from ${file}`);
  }
  const parsed = FaultConfigSchema.safeParse(json);
  if (!parsed.success)
    throw new UsageError(`--faults: ${parsed.error.issues[0]?.message ?? 'invalid fault configuration'}`);
  return parsed.data;
}

/** `--auth-secret-file FILE`: the secret is the file's content without its trailing newline. */
function secretFrom(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(
      `--auth-secret-file: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  return text.replace(/\r?\n$/, '');
}

function port(value: string, name: string): number {
  const n = Number(value);
  if (!/^\d{1,5}$/.test(value) || n > 65535)
    throw new UsageError(`${name} must be a port number (0-65535), got "${value}"`);
  return n;
}

export function sandboxCommand(env: CliEnv = {}): Command {
  return new Command('sandbox')
    .description('Run the embedded ledger (JSON Ledger API v2) and scan (activity feed) for other clients')
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
    .action(
      async (opts: {
        port: string;
        scanPort: string;
        host: string;
        demo?: boolean;
        authSecret?: string;
        authSecretFile?: string;
        jwksUrl?: string;
        auth: boolean;
        faults?: string;
      }) => {
        const given = [opts.authSecret, opts.authSecretFile, opts.jwksUrl].filter((o) => o !== undefined);
        if (!opts.auth && given.length > 0)
          throw new UsageError(
            '--no-auth cannot be combined with --auth-secret, --auth-secret-file or --jwks-url',
          );
        if (given.length > 1)
          throw new UsageError('use one of --auth-secret, --auth-secret-file and --jwks-url');
        const secret = opts.authSecretFile !== undefined ? secretFrom(opts.authSecretFile) : opts.authSecret;
        if (secret !== undefined && secret.length < 16)
          throw new UsageError(
            `${opts.authSecretFile !== undefined ? '--auth-secret-file' : '--auth-secret'}: the secret must be at least 16 characters`,
          );
        const faults = faultsFrom(opts.faults);
        let auth: AuthConfig;
        if (!opts.auth) auth = 'none';
        else if (opts.jwksUrl) auth = { jwksUrl: opts.jwksUrl };
        else
          auth = {
            secret:
              secret ?? loadConfig(env, ['sandbox']).sandbox.authSecret ?? randomBytes(32).toString('hex'),
          };
        const sandbox = await startSandbox({
          port: port(opts.port, '--port'),
          scanPort: port(opts.scanPort, '--scan-port'),
          host: opts.host,
          demo: opts.demo === true,
          auth,
          faults,
        });
        const out = process.stdout;
        out.write(`sandbox ledger: ${sandbox.url}  (ready: GET ${sandbox.url}/v2/state/ledger-end)\n`);
        out.write(`sandbox scan:   ${sandbox.scanUrl}/v0/activities\n`);
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
        await sandbox.close();
      },
    );
}
