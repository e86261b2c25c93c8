// A bad environment, with one line per bad value.
import { QuillError } from '@quill/canton/errors';

/** A bad environment: `problems` has one line per bad value (never the secret itself). */
export class ConfigError extends QuillError<'CONFIG'> {
  override readonly name = 'ConfigError';
  readonly problems: readonly string[];
  constructor(problems: string[]) {
    super('CONFIG', `bad configuration: ${problems.join('; ')}`);
    this.problems = problems;
  }
}
