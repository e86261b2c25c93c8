// `quill parties onboard|list`: KEYS_DIR and the passphrase (config `keys`), the ledger URL and its token
// (config `ledger`: LEDGER_TOKEN, LEDGER_TOKEN_FILE or LEDGER_OAUTH_*, as `quill serve` uses them).
import { Command } from 'commander';
import { loadConfig } from '../config/index.ts';
import { UsageError } from '../errors.ts';
import { PartyRegistry } from '../parties/index.ts';
import { onboardFromConfig } from '../server/parts.ts';
import { addPartyKeyCommands } from './party-keys.ts';
import { type CliEnv, printJson } from './support.ts';

function checkedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new UsageError('the ledger URL must be an http(s) URL');
  }
  return url.replace(/\/+$/, '');
}

export function partiesCommand(env: CliEnv = {}): Command {
  const parties = new Command('parties').description('external parties and the keys that control them');

  parties
    .command('onboard')
    .description(
      'allocate a single-key party <hint>::<fingerprint> on the ledger with a key from KEYS_DIR and remember it ' +
        '(M-of-N parties: `quill parties create`)',
    )
    .requiredOption('--key <fingerprint>', 'fingerprint of the controlling key')
    .requiredOption('--hint <hint>', 'party id hint (letters, digits, space, :, - and _)')
    .option('--synchronizer <id>', 'synchronizer id (default: the first connected one)')
    .option('--ledger-url <url>', 'JSON Ledger API base URL (default: LEDGER_URL)')
    .option('--json', 'print JSON')
    .action(
      async (opts: {
        key: string;
        hint: string;
        synchronizer?: string;
        ledgerUrl?: string;
        json?: boolean;
      }) => {
        const config = loadConfig(env, ['keys', 'ledger']);
        const ledgerUrl = opts.ledgerUrl !== undefined ? checkedUrl(opts.ledgerUrl) : config.ledgerUrl;
        if (!ledgerUrl) throw new UsageError('no ledger: pass --ledger-url or set LEDGER_URL');
        const party = await onboardFromConfig(config, {
          ledgerUrl,
          keyFingerprint: opts.key,
          partyHint: opts.hint,
          ...(opts.synchronizer !== undefined ? { synchronizerId: opts.synchronizer } : {}),
        });
        if (opts.json) printJson(party);
        else
          process.stdout.write(
            `${party.partyId}\n  key ${party.keyFingerprint}\n  on  ${party.synchronizerId}\n`,
          );
      },
    );

  parties
    .command('list')
    .description('list the parties this wallet controls')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const records = await new PartyRegistry({ dir: loadConfig(env, ['keys']).keysDir }).list();
      if (opts.json) printJson(records);
      else {
        for (const r of records) {
          process.stdout.write(`${r.partyId}  ${r.keyFingerprint}  ${r.synchronizerId}  ${r.createdAt}\n`);
        }
      }
    });

  addPartyKeyCommands(parties, env);
  return parties;
}
