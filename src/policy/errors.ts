// The policy's own errors: a document that does not validate (one problem per bad path), and a change to the
// policy refused (governance: who may decide, a proposal no longer open, a version changed meanwhile).
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

export type PolicyRefusalStatus = 400 | 403 | 404 | 409;

/** A policy change or decision refused, with the HTTP status and code the API answers. */
export class PolicyRefused extends QuillError {
  override readonly name = 'PolicyRefused';
  constructor(
    readonly status: PolicyRefusalStatus,
    code: string,
    message: string,
  ) {
    super(code, message);
  }
}
