// Approval policy (issue 15): the document in POLICY_FILE (YAML or JSON), validated at start; and the holding
// recognizers of registries beyond the built-in ones in RECOGNIZERS_FILE (issue 27).
import { readFileSync } from 'node:fs';
import {
  type HoldingRecognizer,
  type PolicyDocument,
  PolicyInvalid,
  parsePolicy,
  parseRecognizers,
} from '../policy/index.ts';
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

function readRecognizersFile(path: string, problem: Problem): HoldingRecognizer[] | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    problem(`RECOGNIZERS_FILE: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
  const r = parseRecognizers(text);
  if ('holdings' in r) return r.holdings;
  for (const p of r.problems) problem(`RECOGNIZERS_FILE: ${p.path || '(document)'}: ${p.message}`);
  return undefined;
}

export const policy = section({
  summary: 'The approval policy (see docs/policies.md).',
  vars: {
    POLICY_FILE: optionalText.describe(
      "approval policy (YAML or JSON); a bad file stops `quill serve` with exit 2 naming each problem's " +
        'path; unset = every checked transaction is signed',
    ),
    RECOGNIZERS_FILE: optionalText.describe(
      'holding recognizers of further token registries (YAML or JSON `{holdings: [{template, owner, amount, ' +
        'admin, instrument, lock?}]}`, see docs/policies.md), tried before the built-in Amulet ones; a bad file ' +
        "stops `quill serve` with exit 2 naming each problem's path",
    ),
  },
  outputs: { policy: true, recognizers: true },
  build: (e, problem): { policy?: PolicyDocument; recognizers: HoldingRecognizer[] } => {
    const doc = e.POLICY_FILE !== undefined ? readPolicyFile(e.POLICY_FILE, problem) : undefined;
    const recognizers =
      e.RECOGNIZERS_FILE !== undefined ? readRecognizersFile(e.RECOGNIZERS_FILE, problem) : [];
    return { ...(doc ? { policy: doc } : {}), recognizers: recognizers ?? [] };
  },
});
