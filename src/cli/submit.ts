// `quill submit`: posts a prepared transaction to the wallet API (QUILL_URL, QUILL_TOKEN: config `client`).
import { Command } from 'commander';
import { UsageError } from '../errors.ts';
import { type CliEnv, printJson, readInput } from './support.ts';
import { callWallet, checkIdempotencyKey, failIfUnsuccessful, parseWait } from './wallet-client.ts';

const REQUEST_FIELDS = [
  'preparedTransaction',
  'hashingSchemeVersion',
  'preparedTransactionHash',
  'party',
  'deduplicationPeriod',
  'userId',
  'minLedgerTime',
  'transactionFormat',
  // Informative, kept on the record; a prepare response's other fields (hashingDetails, future ones) are dropped.
  'costEstimation',
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
      for (const k of REQUEST_FIELDS) if (src[k] !== undefined && src[k] !== null) body[k] = src[k];
      body.party = o.party;
      body.hashingSchemeVersion ??= 'HASHING_SCHEME_VERSION_V2';
      checkIdempotencyKey(o.idempotencyKey);
      const wait = parseWait(o.wait);
      const json = await callWallet(env, {
        method: 'POST',
        path: '/wallet/v1/submissions',
        body,
        wait,
        idempotencyKey: o.idempotencyKey,
        // The request is the file: a refusal other than authentication is bad input.
        badInput: (status) => status >= 400 && status < 500 && status !== 401 && status !== 403,
      });
      printJson(json);
      failIfUnsuccessful(json, 'the submission');
    });
}
