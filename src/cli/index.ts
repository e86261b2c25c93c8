// Entry point: quill serve | sandbox | keys | parties | tx | submit | transfer | instructions | tokens | events |
// audit | backup | restore | console.

import { LedgerError } from '@quill/canton/ledger';
import { TransactionError } from '@quill/canton/transaction';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/index.ts';
import { CommandFailure, UsageError } from '../errors.ts';
import { PartyError } from '../parties/index.ts';
import { SigningError } from '../signing/index.ts';
import { auditCommand } from './audit.ts';
import { backupCommand, restoreCommand } from './backup.ts';
import { consoleCommand } from './console.ts';
import { eventsCommand } from './events.ts';
import { instructionsCommand } from './instructions.ts';
import { keysCommand } from './keys.ts';
import { partiesCommand } from './parties.ts';
import { sandboxCommand } from './sandbox.ts';
import { serveCommand } from './serve.ts';
import { submitCommand } from './submit.ts';
import { type CliEnv, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './support.ts';
import { tokensCommand } from './tokens.ts';
import { transferCommand } from './transfer.ts';
import { txCommand } from './tx.ts';
import { quillVersion } from './version.ts';

export { quillVersion };

function program(env: CliEnv): Command {
  const root = new Command('quill')
    .description(
      "Quill: holds external parties' keys, checks and signs prepared transactions, submits them exactly once",
    )
    .version(quillVersion(), '-V, --version', 'the release (package.json)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError(false);
  for (const sub of subcommands(env)) root.addCommand(sub);
  return root;
}

function subcommands(env: CliEnv): Command[] {
  return [
    keysCommand(env),
    partiesCommand(env),
    txCommand(),
    submitCommand(env),
    transferCommand(env),
    instructionsCommand(env),
    eventsCommand(env),
    auditCommand(env),
    backupCommand(env),
    restoreCommand(env),
    consoleCommand(env),
    tokensCommand(env),
    sandboxCommand(env),
    serveCommand(env),
  ];
}

const firstLine = (s: string) => s.split('\n')[0] ?? '';

/**
 * The one table from a thrown error to the exit code and the line printed on stderr (undefined: nothing to
 * print). Bad input or usage is 2, everything else 1; the message is one line, never a stack trace.
 */
export function exitFor(err: unknown): { code: number; message?: string } {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) {
      return { code: EXIT_OK };
    }
    return { code: EXIT_USAGE }; // commander already printed its one-line message
  }
  if (err instanceof UsageError || err instanceof ConfigError)
    return { code: EXIT_USAGE, message: err.message };
  if (err instanceof TransactionError) {
    return { code: EXIT_USAGE, message: `invalid prepared transaction (${err.code}): ${err.message}` };
  }
  if (err instanceof SigningError) {
    const bad = err.code === 'BAD_INPUT' || err.code === 'CONFIG';
    return { code: bad ? EXIT_USAGE : EXIT_FAILURE, message: err.message };
  }
  if (err instanceof PartyError) {
    return { code: err.code === 'BAD_INPUT' ? EXIT_USAGE : EXIT_FAILURE, message: err.message };
  }
  if (err instanceof LedgerError) return { code: EXIT_FAILURE, message: `ledger: ${err.message}` };
  if (err instanceof CommandFailure) return { code: EXIT_FAILURE, message: err.message };
  return { code: EXIT_FAILURE, message: err instanceof Error ? err.message : String(err) };
}

/**
 * Runs the CLI and returns its exit code (0 ok, 1 failure, 2 bad input or usage). `env` is where every
 * command's configuration comes from (src/config/).
 */
export async function main(argv: string[], env: CliEnv = process.env): Promise<number> {
  const root = program(env);
  root.commands.forEach(function exitOverrideAll(c: Command) {
    c.exitOverride();
    c.commands.forEach(exitOverrideAll);
  });
  try {
    if (argv.length === 0) {
      root.outputHelp();
      return EXIT_OK;
    }
    await root.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT_OK;
  } catch (err) {
    const { code, message } = exitFor(err);
    if (message !== undefined) process.stderr.write(`quill: ${firstLine(message)}\n`);
    return code;
  }
}
