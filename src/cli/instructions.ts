// `quill instructions list|accept|reject|withdraw`: a wallet party's pending two-step transfers
// (GET /wallet/v1/parties/{party}/transfer-instructions) and deciding one
// (POST /wallet/v1/transfer-instructions/{id}/{action}: Quill prepares the choice, checks it, signs and submits).
import { Command, Option } from 'commander';
import { UsageError } from '../errors.ts';
import { type CliEnv, printJson } from './support.ts';
import { checkParty } from './transfer.ts';
import { callWallet, checkIdempotencyKey, failIfUnsuccessful, parseWait } from './wallet-client.ts';

/** The fields of the API's TransferInstruction that the table shows. */
interface InstructionRow {
  contractId: string;
  direction: 'incoming' | 'outgoing';
  sender: string;
  receiver: string;
  amount: string;
  instrument: { admin: string; id: string };
  memo: string | null;
  executeBefore: string;
  expired?: boolean;
}

const HEADER = ['CONTRACT ID', 'DIRECTION', 'COUNTERPARTY', 'AMOUNT', 'INSTRUMENT', 'MEMO', 'EXECUTE BEFORE'];

/** Columns padded to their widest cell; the memo on one line; an expired instruction says so. */
export function instructionTable(items: readonly InstructionRow[]): string {
  const rows = items.map((i) => [
    i.contractId,
    i.direction,
    i.direction === 'incoming' ? i.sender : i.receiver,
    i.amount,
    i.instrument.id,
    (i.memo ?? '').replace(/\s+/g, ' '),
    `${i.executeBefore}${i.expired ? ' (expired)' : ''}`,
  ]);
  const all = [HEADER, ...rows];
  const widths = HEADER.map((_h, c) => Math.max(...all.map((r) => (r[c] ?? '').length)));
  return all
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const ACTIONS = ['accept', 'reject', 'withdraw'] as const;
type Action = (typeof ACTIONS)[number];

const WHO: Record<Action, string> = {
  accept: 'the receiver',
  reject: 'the receiver',
  withdraw: 'the sender',
};

export function instructionsCommand(env: CliEnv = {}): Command {
  const cmd = new Command('instructions').description(
    "a wallet party's pending transfer instructions (two-step transfers): list them, accept or reject an " +
      'incoming one, withdraw an outgoing one. QUILL_URL and QUILL_TOKEN from the environment',
  );
  cmd
    .command('list')
    .description('list the pending instructions of a party, oldest first')
    .requiredOption('--party <party>', 'the wallet party')
    .addOption(new Option('--direction <direction>', 'only one direction').choices(['incoming', 'outgoing']))
    .option('--json', 'print the API answer as JSON')
    .action(async (o: { party: string; direction?: string; json?: boolean }) => {
      const party = checkParty('--party', o.party);
      const answer = await callWallet<{ items: InstructionRow[] }>(env, {
        method: 'GET',
        path: `/wallet/v1/parties/${encodeURIComponent(party)}/transfer-instructions`,
        query: { direction: o.direction },
      });
      if (o.json) printJson(answer);
      else if (answer.items.length === 0) process.stdout.write('no pending transfer instructions\n');
      else process.stdout.write(`${instructionTable(answer.items)}\n`);
    });
  for (const action of ACTIONS) {
    cmd
      .command(action)
      .description(
        `${action} a transfer instruction as ${WHO[action]} and print the submission record; exit 1 if it ends ` +
          'rejected or expired',
      )
      .argument('<contractId>', 'the TransferInstruction contract id (from `quill instructions list`)')
      .option('--party <party>', `the acting wallet party (default: ${WHO[action]} of the instruction)`)
      .option('--idempotency-key <key>', 'Idempotency-Key header: the same key answers the same record')
      .option('--wait [seconds]', 'wait for the outcome (default 60 s)')
      .action(
        async (
          contractId: string,
          o: { party?: string; idempotencyKey?: string; wait?: string | boolean },
        ) => {
          if (contractId.trim() === '') throw new UsageError('the contract id must not be empty');
          const body = o.party !== undefined ? { party: checkParty('--party', o.party) } : {};
          checkIdempotencyKey(o.idempotencyKey);
          const wait = parseWait(o.wait);
          const record = await callWallet(env, {
            method: 'POST',
            path: `/wallet/v1/transfer-instructions/${encodeURIComponent(contractId)}/${action}`,
            body,
            wait,
            idempotencyKey: o.idempotencyKey,
          });
          printJson(record);
          failIfUnsuccessful(record, `the ${action}`);
        },
      );
  }
  return cmd;
}
