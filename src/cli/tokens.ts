// `quill tokens issue`: a bearer token for the wallet API, signed with AUTH_JWT_SECRET (config `auth`).
import { Command, Option } from 'commander';
import { issueToken, parseTtl, ROLES, type Role } from '../auth/index.ts';
import { loadConfig } from '../config/index.ts';
import { UsageError } from '../errors.ts';
import type { CliEnv } from './support.ts';

export function tokensCommand(env: CliEnv = {}): Command {
  const tokens = new Command('tokens').description('API access tokens');
  tokens
    .command('issue')
    .description('print a bearer token for the wallet API, signed with AUTH_JWT_SECRET')
    .addOption(
      new Option('--role <role>', 'read | submit | approve | admin')
        .choices([...ROLES])
        .makeOptionMandatory(),
    )
    .option('--party <party>', 'scope the token to one party')
    .option('--ttl <ttl>', 'lifetime: 90s, 30m, 1h, 7d', '1h')
    .option(
      '--subject <sub>',
      'who the token is for (audit log; scopes its idempotency keys); default tok-<random>',
    )
    .action(async (o: { role: Role; party?: string; ttl: string; subject?: string }) => {
      const { auth } = loadConfig(env, ['auth']);
      const secret = auth.jwtSecret;
      if (!secret)
        throw new UsageError(
          'AUTH_JWT_SECRET (or AUTH_JWT_SECRET_FILE) is not set: tokens are signed with it',
        );
      let ttlSeconds: number;
      try {
        ttlSeconds = parseTtl(o.ttl);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      if (ttlSeconds > auth.maxTokenTtlSeconds)
        throw new UsageError(
          `--ttl ${o.ttl} is longer than AUTH_MAX_TOKEN_TTL (${auth.maxTokenTtlSeconds} s)`,
        );
      if (o.party !== undefined && o.party.trim() === '') throw new UsageError('--party must not be empty');
      const token = await issueToken({
        secret,
        role: o.role,
        ttlSeconds,
        ...(o.party ? { party: o.party } : {}),
        ...(o.subject ? { subject: o.subject } : {}),
        ...(auth.issuer ? { issuer: auth.issuer } : {}),
        ...(auth.audience ? { audience: auth.audience } : {}),
      });
      process.stdout.write(`${token}\n`);
    });
  return tokens;
}
