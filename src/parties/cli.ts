// `quill parties onboard|list`: KEYS_DIR, the passphrase, LEDGER_URL and LEDGER_TOKEN come from the environment.
import { Command } from 'commander';
import { CommandFailure, printJson, UsageError } from '../cli/support.ts';
import { LedgerClient } from '../ledger/index.ts';
import { keyStoreFromEnv, runKeyCommand } from '../signing/cli.ts';
import { LocalSigner } from '../signing/index.ts';
import { PartyError } from './errors.ts';
import { onboardExternalParty } from './onboard.ts';
import { PartyRegistry } from './registry.ts';

function ledgerUrl(flag: string | undefined): string {
  const url = flag ?? process.env.LEDGER_URL;
  if (!url) throw new UsageError('no ledger: pass --ledger-url or set LEDGER_URL');
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new UsageError('the ledger URL must be an http(s) URL');
  }
  return url.replace(/\/+$/, '');
}

async function runPartyCommand(action: () => Promise<void>): Promise<void> {
  await runKeyCommand(async () => {
    try {
      await action();
    } catch (err) {
      if (err instanceof PartyError) {
        if (err.code === 'BAD_INPUT') throw new UsageError(err.message);
        throw new CommandFailure(err.message);
      }
      if (err instanceof Error && err.name === 'LedgerError') {
        throw new CommandFailure(`ledger: ${err.message.split('\n')[0]}`);
      }
      throw err;
    }
  });
}

export function partiesCommand(): Command {
  const parties = new Command('parties').description('external parties and the keys that control them');

  parties
    .command('onboard')
    .description('allocate <hint>::<fingerprint> on the ledger with a key from KEYS_DIR and remember it')
    .requiredOption('--key <fingerprint>', 'fingerprint of the controlling key')
    .requiredOption('--hint <hint>', 'party id hint (letters, digits, space, :, - and _)')
    .option('--synchronizer <id>', 'synchronizer id (default: the first connected one)')
    .option('--ledger-url <url>', 'JSON Ledger API base URL (default: LEDGER_URL)')
    .option('--json', 'print JSON')
    .action(
      (opts: { key: string; hint: string; synchronizer?: string; ledgerUrl?: string; json?: boolean }) =>
        runPartyCommand(async () => {
          const baseUrl = ledgerUrl(opts.ledgerUrl);
          const keys = keyStoreFromEnv();
          const token = process.env.LEDGER_TOKEN?.trim();
          const userId = process.env.LEDGER_USER_ID?.trim();
          const party = await onboardExternalParty({
            ledger: new LedgerClient({ baseUrl, ...(token ? { token } : {}) }),
            signer: new LocalSigner(keys),
            keys,
            registry: new PartyRegistry({ dir: keys.dir }),
            keyFingerprint: opts.key,
            partyHint: opts.hint,
            ...(opts.synchronizer !== undefined ? { synchronizerId: opts.synchronizer } : {}),
            ...(userId ? { userId } : {}),
          });
          if (opts.json) printJson(party);
          else
            process.stdout.write(
              `${party.partyId}\n  key ${party.keyFingerprint}\n  on  ${party.synchronizerId}\n`,
            );
        }),
    );

  parties
    .command('list')
    .description('list the parties this wallet controls')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      runPartyCommand(async () => {
        const records = await new PartyRegistry({ dir: process.env.KEYS_DIR?.trim() || 'keys' }).list();
        if (opts.json) printJson(records);
        else {
          for (const r of records) {
            process.stdout.write(`${r.partyId}  ${r.keyFingerprint}  ${r.synchronizerId}  ${r.createdAt}\n`);
          }
        }
      }),
    );

  return parties;
}
