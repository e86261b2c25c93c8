// The policy's own error: a document that does not validate, with one problem per bad path.
import { QuillError } from '@quill/canton/errors';

export interface PolicyProblem {
  path: string;
  message: string;
}

export class PolicyInvalid extends QuillError<'POLICY_INVALID'> {
  override readonly name = 'PolicyInvalid';
  readonly problems: PolicyProblem[];
  constructor(problems: PolicyProblem[]) {
    super(
      'POLICY_INVALID',
      `invalid policy: ${problems
        .slice(0, 5)
        .map((p) => `${p.path || '(document)'}: ${p.message}`)
        .join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}`,
    );
    this.problems = problems;
  }
}
