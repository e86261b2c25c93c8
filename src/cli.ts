// Entry point: quill serve | sandbox | keys | parties | tx | submit | tokens.
import { Command, CommanderError } from 'commander';
import { CommandFailure, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from './cli/support.ts';
import { partiesCommand } from './parties/cli.ts';
import { sandboxCommand } from './sandbox/cli.ts';
import { submitCommand, tokensCommand } from './server/cli.ts';
import { serveCommand } from './server/serve.ts';
import { keysCommand } from './signing/cli.ts';
import { txCommand } from './transaction/cli.ts';

function program(): Command {
  const root = new Command('quill')
    .description(
      "Quill: holds external parties' keys, checks and signs prepared transactions, submits them exactly once",
    )
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError(false);
  // Each area registers its own subcommand here.
  for (const sub of subcommands()) root.addCommand(sub);
  return root;
}

function subcommands(): Command[] {
  return [
    keysCommand(),
    partiesCommand(),
    txCommand(),
    submitCommand(),
    tokensCommand(),
    sandboxCommand(),
    serveCommand(),
  ];
}

/** Runs the CLI and returns its exit code (0 ok, 1 failure, 2 bad input or usage). */
export async function main(argv: string[]): Promise<number> {
  const root = program();
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
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) {
        return EXIT_OK;
      }
      return EXIT_USAGE; // commander already printed its one-line message
    }
    if (err instanceof UsageError) {
      process.stderr.write(`quill: ${err.message}\n`);
      return EXIT_USAGE;
    }
    if (err instanceof CommandFailure) {
      process.stderr.write(`quill: ${err.message}\n`);
      return EXIT_FAILURE;
    }
    process.stderr.write(`quill: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT_FAILURE;
  }
}
