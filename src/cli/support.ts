// Shared plumbing for the command-line entry points: exit codes, input reading, one-line errors.
import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.ts';

/** The environment a command reads its configuration from (`main` passes process.env). */
export type CliEnv = Readonly<Record<string, string | undefined>>;

/** Exit codes of every quill command: 0 ok, 1 failure, 2 bad input or usage. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Reads a file argument, or standard input for `-` or no argument. */
export function readInput(file: string | undefined): Buffer {
  try {
    return file === undefined || file === '-' ? readFileSync(0) : readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file ?? 'standard input'}: ${code ?? (err as Error).message}`);
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(
    `${JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`,
  );
}
