// `quill transfer`: asks the wallet to send tokens (POST /wallet/v1/transfers): Quill picks the holdings, asks the
// registry and the participant, checks that what was prepared is what was asked, then signs and submits it.
import { Command } from 'commander';
import { UsageError } from '../errors.ts';
import { type CliEnv, printJson } from './support.ts';
import { callWallet, checkIdempotencyKey, failIfUnsuccessful, parseWait } from './wallet-client.ts';

/** What the API takes: a positive decimal with at most 10 decimals (Daml's Numeric 10), at most 28 digits before. */
const AMOUNT = /^\d{1,28}(\.\d{1,10})?$/;
/** The API's ISO 8601 date-time: seconds and a zone (`Z` or `±hh:mm`) required. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
export const MAX_MEMO = 256;

/**
 * `ADMIN:ID` split at the last colon: party ids contain `::`, instrument ids (`Amulet`, `USDQ`) contain none. A
 * value whose last colon belongs to a `::` has no id.
 */
export function parseInstrument(s: string): { admin: string; id: string } {
  const at = s.lastIndexOf(':');
  const admin = s.slice(0, at);
  const id = s.slice(at + 1);
  if (at <= 0 || id.trim() === '' || admin.endsWith(':'))
    throw new UsageError(`--instrument must be ADMIN:ID, such as DSO::1220…:Amulet (got "${s}")`);
  return { admin, id };
}

export function checkAmount(s: string): string {
  if (!AMOUNT.test(s) || !/[1-9]/.test(s))
    throw new UsageError(`--amount must be a positive decimal with at most 10 decimals (got "${s}")`);
  return s;
}

export function checkTime(option: string, s: string): string {
  if (!ISO_TIME.test(s) || !Number.isFinite(Date.parse(s)))
    throw new UsageError(`${option} must be an ISO 8601 time with a zone, such as 2026-11-26T12:00:00Z`);
  return s;
}

export function checkParty(option: string, s: string): string {
  if (s.trim() === '' || s.length > 512)
    throw new UsageError(`${option} must be a party id (1-512 characters)`);
  return s;
}

interface TransferOptions {
  party: string;
  to: string;
  instrument: string;
  amount: string;
  memo?: string;
  executeBefore?: string;
  idempotencyKey?: string;
  wait?: string | boolean;
}

export function transferCommand(env: CliEnv = {}): Command {
  return new Command('transfer')
    .description(
      'send tokens of a registry instrument from a wallet party (POST /wallet/v1/transfers) and print the ' +
        'submission record; exit 1 if it ends rejected or expired. QUILL_URL and QUILL_TOKEN from the environment',
    )
    .requiredOption('--party <party>', 'the sending party (a wallet party)')
    .requiredOption('--to <party>', 'the receiver')
    .requiredOption(
      '--instrument <admin:id>',
      'the instrument: its admin party and id, e.g. DSO::1220…:Amulet',
    )
    .requiredOption('--amount <decimal>', 'how much, e.g. 12.5 (at most 10 decimals)')
    .option('--memo <text>', `a reason the receiver sees (at most ${MAX_MEMO} characters)`)
    .option('--execute-before <iso>', 'the latest time the transfer may complete (default: in 24 hours)')
    .option('--idempotency-key <key>', 'Idempotency-Key header: the same key answers the same record')
    .option('--wait [seconds]', 'wait for the outcome (default 60 s)')
    .action(async (o: TransferOptions) => {
      const body = {
        party: checkParty('--party', o.party),
        receiver: checkParty('--to', o.to),
        instrument: parseInstrument(o.instrument),
        amount: checkAmount(o.amount),
        ...(o.memo !== undefined ? { memo: checkMemo(o.memo) } : {}),
        ...(o.executeBefore !== undefined
          ? { executeBefore: checkTime('--execute-before', o.executeBefore) }
          : {}),
      };
      checkIdempotencyKey(o.idempotencyKey);
      const wait = parseWait(o.wait);
      const record = await callWallet(env, {
        method: 'POST',
        path: '/wallet/v1/transfers',
        body,
        wait,
        idempotencyKey: o.idempotencyKey,
      });
      printJson(record);
      failIfUnsuccessful(record, 'the transfer');
    });
}

function checkMemo(s: string): string {
  if (s.length > MAX_MEMO)
    throw new UsageError(`--memo must be at most ${MAX_MEMO} characters (got ${s.length})`);
  return s;
}
