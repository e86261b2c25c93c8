// `quill tokens issue` and `quill submit`: the command-line side of the wallet API.
import { Command, Option } from 'commander';
import { issueToken, parseTtl, ROLES, type Role } from '../api/index.ts';
import { CommandFailure, printJson, readInput, UsageError } from '../cli/support.ts';

export function tokensCommand(): Command {
  const tokens = new Command('tokens').description('API access tokens');
  tokens
    .command('issue')
    .description('print a bearer token for the wallet API, signed with AUTH_JWT_SECRET')
    .addOption(new Option('--role <role>', 'read | submit | admin').choices([...ROLES]).makeOptionMandatory())
    .option('--party <party>', 'scope the token to one party')
    .option('--ttl <ttl>', 'lifetime: 90s, 30m, 1h, 7d', '1h')
    .option('--subject <sub>', 'who the token is for (appears in the audit log)')
    .action(async (o: { role: Role; party?: string; ttl: string; subject?: string }) => {
      const secret = process.env.AUTH_JWT_SECRET;
      if (!secret) throw new UsageError('AUTH_JWT_SECRET is not set: tokens are signed with it');
      if (secret.length < 32) throw new UsageError('AUTH_JWT_SECRET must be at least 32 characters');
      let ttlSeconds: number;
      try {
        ttlSeconds = parseTtl(o.ttl);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      if (o.party !== undefined && o.party.trim() === '') throw new UsageError('--party must not be empty');
      const token = await issueToken({
        secret,
        role: o.role,
        ttlSeconds,
        ...(o.party ? { party: o.party } : {}),
        ...(o.subject ? { subject: o.subject } : {}),
        ...(process.env.AUTH_ISSUER ? { issuer: process.env.AUTH_ISSUER } : {}),
        ...(process.env.AUTH_AUDIENCE ? { audience: process.env.AUTH_AUDIENCE } : {}),
      });
      process.stdout.write(`${token}\n`);
    });
  return tokens;
}

const REQUEST_FIELDS = [
  'preparedTransaction',
  'hashingSchemeVersion',
  'preparedTransactionHash',
  'party',
  'deduplicationPeriod',
  'userId',
  'minLedgerTime',
  'transactionFormat',
] as const;

export function submitCommand(): Command {
  return new Command('submit')
    .description(
      'submit a prepared transaction to the wallet API (FILE: a submission request or a prepare response; - = stdin). ' +
        'QUILL_URL (default http://127.0.0.1:8080) and QUILL_TOKEN from the environment',
    )
    .argument('[file]', 'JSON file', '-')
    .requiredOption('--party <party>', 'the submitting party (must be the only actAs party)')
    .option('--wait [seconds]', 'wait for the outcome (default 60 s)')
    .option('--idempotency-key <key>', 'Idempotency-Key header')
    .action(async (file: string, o: { party: string; wait?: string | boolean; idempotencyKey?: string }) => {
      let input: unknown;
      try {
        input = JSON.parse(readInput(file).toString('utf8'));
      } catch (err) {
        if (err instanceof UsageError) throw err;
        throw new UsageError(`${file === '-' ? 'standard input' : file} is not JSON`);
      }
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        throw new UsageError(
          'the file must hold a JSON object with preparedTransaction and hashingSchemeVersion',
        );
      }
      const src = input as Record<string, unknown>;
      const body: Record<string, unknown> = {};
      for (const k of REQUEST_FIELDS) if (src[k] !== undefined) body[k] = src[k];
      body.party = o.party;
      body.hashingSchemeVersion ??= 'HASHING_SCHEME_VERSION_V2';
      const wait = o.wait === undefined ? 0 : o.wait === true ? 60 : Number(o.wait);
      if (!Number.isFinite(wait) || wait < 0) throw new UsageError('--wait takes a number of seconds');
      const base = (process.env.QUILL_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
      const token = process.env.QUILL_TOKEN;
      let res: Response;
      try {
        res = await fetch(`${base}/wallet/v1/submissions${wait > 0 ? `?wait=${wait}` : ''}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(o.idempotencyKey ? { 'idempotency-key': o.idempotencyKey } : {}),
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout((wait + 30) * 1000),
        });
      } catch (err) {
        throw new CommandFailure(`cannot reach the wallet at ${base}: ${(err as Error).message}`);
      }
      const text = await res.text();
      let json: { error?: { code?: string; message?: string }; status?: string } | undefined;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      if (!res.ok) {
        const e = json?.error;
        const line = e ? `${e.code}: ${e.message}` : `HTTP ${res.status}`;
        if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403)
          throw new UsageError(line);
        throw new CommandFailure(line);
      }
      printJson(json);
      if (json?.status === 'rejected' || json?.status === 'expired') process.exitCode = 1;
    });
}
