// `quill console link`: a one-time console sign-in link, signed with AUTH_JWT_SECRET (config `auth`).
import { Command, Option } from 'commander';
import { parseTtl, ROLES, type Role } from '../auth/index.ts';
import { loadConfig } from '../config/index.ts';
import { consoleBaseUrl, signInLink } from '../console/index.tsx';
import { UsageError } from '../errors.ts';
import type { CliEnv } from './support.ts';

/** Links are for signing in now: at most a day. */
const MAX_LINK_TTL = 86_400;

export function consoleCommand(env: CliEnv = {}): Command {
  const cmd = new Command('console').description('the operator console (/console)');
  cmd
    .command('link')
    .description('print a one-time console sign-in link (single use, short-lived)')
    .addOption(
      new Option('--role <role>', 'admin | approve | submit | read')
        .choices([...ROLES])
        .makeOptionMandatory(),
    )
    .option('--party <party>', 'scope the operator to one party')
    .option('--ttl <ttl>', 'how long the link can be used: 90s, 15m, 1h (at most 24h)', '15m')
    .option('--subject <name>', 'who the operator is in the audit; default operator-<random>')
    .action(async (o: { role: Role; party?: string; ttl: string; subject?: string }) => {
      const config = loadConfig(env, ['auth', 'console', 'server']);
      if (!config.auth.jwtSecret)
        throw new UsageError(
          'AUTH_JWT_SECRET (or AUTH_JWT_SECRET_FILE) is not set: links are signed with it',
        );
      let ttlSeconds: number;
      try {
        ttlSeconds = parseTtl(o.ttl);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      if (ttlSeconds > MAX_LINK_TTL) throw new UsageError('--ttl: a sign-in link lives at most 24h');
      if (o.party !== undefined && o.party.trim() === '') throw new UsageError('--party must not be empty');
      if (o.subject !== undefined && !/^[\w.@:-]{1,100}$/.test(o.subject))
        throw new UsageError('--subject: 1 to 100 letters, digits, or . @ : _ -');
      const base = consoleBaseUrl({
        publicUrl: config.console.publicUrl,
        host: config.host,
        port: config.port,
      });
      const link = await signInLink(config.auth.jwtSecret, base, {
        role: o.role,
        ttlSeconds,
        ...(o.party ? { party: o.party.trim() } : {}),
        ...(o.subject ? { subject: o.subject } : {}),
      });
      process.stdout.write(`${link}\n`);
    });
  return cmd;
}
