// Shared plumbing for the command-line entry points: exit codes, input reading, one-line errors.
import { readFileSync } from 'node:fs';
import { QuillError } from '../errors.ts';

/** The environment a command reads its configuration from (`main` passes process.env). */
export type CliEnv = Readonly<Record<string, string | undefined>>;

/** Exit codes of every quill command: 0 ok, 1 failure, 2 bad input or usage. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Bad input or usage: printed as one line on stderr, exit code 2. */
export class UsageError extends QuillError<'USAGE'> {
  override readonly name = 'UsageError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('USAGE', message, options);
  }
}

/** A command that ran but failed: printed as one line on stderr, exit code 1. */
export class CommandFailure extends QuillError<'FAILED'> {
  override readonly name = 'CommandFailure';
  constructor(message: string, options?: { cause?: unknown }) {
    super('FAILED', message, options);
  }
}

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
