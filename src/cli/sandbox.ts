// `quill sandbox …`: the sandbox package's own command line (`quill-sandbox`), for other clients. Every option is
// the sandbox's (`quill sandbox --help`); it is loaded only when this command runs.
import { Command } from 'commander';
import { loadSandboxCli } from '../dev/sandbox.ts';
import type { CliEnv } from './support.ts';

export function sandboxCommand(env: CliEnv = {}): Command {
  return new Command('sandbox')
    .description(
      'run the sandbox ledger and scan for other clients (a development tool; see `quill sandbox --help`)',
    )
    .helpOption(false)
    .allowUnknownOption()
    .argument('[options...]', 'the sandbox’s options (`quill sandbox --help`)')
    .action(async (args: string[]) => {
      const { main } = await loadSandboxCli();
      process.exitCode = await main(args, env, 'quill sandbox');
    });
}
