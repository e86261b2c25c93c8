// What a key backend brings besides its keys: its own piece of the configuration (its environment variables,
// each described, and how they make its options) and how it opens. The table of them is backends.ts.
import type { z } from 'zod';
import type { KeyBackend } from './keys.ts';

/** What a backend's `configure` may use: KEYS_DIR, a way to name a bad value, and secrets read from files. */
export interface ConfigureContext {
  keysDir: string;
  /** One line per bad value (never the secret itself). */
  problem(line: string): void;
  /** A secret file's content (one trailing newline dropped); undefined, with a problem, when it cannot be read. */
  readSecretFile(path: string, variable: string): string | undefined;
}

export interface KeyBackendType<Options = unknown> {
  /** What keys and requests call it (`file`, `pkcs11`). */
  readonly name: string;
  /** One line for people: where its keys live. */
  readonly summary: string;
  /** Its environment variables, each `.describe()`d (or marked secret): composed into the `keys` config section. */
  readonly vars: z.ZodRawShape;
  /** Its options from its variables; undefined when they do not configure it. */
  configure(vars: Readonly<Record<string, unknown>>, ctx: ConfigureContext): Options | undefined;
  /** What an operator sets to use it: said when a request names it while it is not configured. */
  readonly setUp: string;
  /** Whether it makes keys (`generate`) and takes over keys made outside Quill (`adopt`). */
  readonly makes: { generate: boolean; adopt: boolean };
  open(options: Options): KeyBackend;
}
