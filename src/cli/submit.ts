// `quill submit`: posts a prepared transaction to the wallet API (QUILL_URL, QUILL_TOKEN: config `client`).
import { Command } from 'commander';
import { loadConfig } from '../config/index.ts';
import { CommandFailure, UsageError } from '../errors.ts';
import { type CliEnv, printJson, readInput } from './support.ts';

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

export function submitCommand(env: CliEnv = {}): Command {
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
      const { walletUrl: base, walletToken: token } = loadConfig(env, ['client']);
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
