// Approval policy (issue 15): the document in POLICY_FILE (YAML or JSON), validated at start.
import { readFileSync } from 'node:fs';
import { type PolicyDocument, PolicyInvalid, parsePolicy } from '../policy/index.ts';
import { optionalText, type Problem } from './env.ts';
import { section } from './section.ts';

function readPolicyFile(path: string, problem: Problem): PolicyDocument | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    problem(`POLICY_FILE: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
  try {
    return parsePolicy(text);
  } catch (err) {
    if (!(err instanceof PolicyInvalid)) throw err;
    for (const p of err.problems) problem(`POLICY_FILE: ${p.path || '(document)'}: ${p.message}`);
    return undefined;
  }
}

export const policy = section({
  summary: 'The approval policy (see docs/policies.md).',
  vars: {
    POLICY_FILE: optionalText.describe(
      "approval policy (YAML or JSON); a bad file stops `quill serve` with exit 2 naming each problem's " +
        'path; unset = every checked transaction is signed',
    ),
  },
  outputs: { policy: true },
  build: (e, problem): { policy?: PolicyDocument } => {
    const doc = e.POLICY_FILE !== undefined ? readPolicyFile(e.POLICY_FILE, problem) : undefined;
    return doc ? { policy: doc } : {};
  },
});
