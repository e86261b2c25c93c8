// The OpenAPI document's examples are what the API takes and answers: each parses with the schema it illustrates.
import { describe, expect, it } from 'vitest';
import { ErrorBody } from '../../../src/api/errors.ts';
import {
  committedSubmissionExample,
  ERROR_EXAMPLES,
  queuedSubmissionExample,
  submissionRequestExample,
} from '../../../src/api/examples.ts';
import { SubmissionBody, SubmissionView } from '../../../src/api/schemas.ts';

describe('OpenAPI examples', () => {
  it('parse with their schemas', () => {
    expect(SubmissionBody.safeParse(submissionRequestExample).error).toBeUndefined();
    expect(SubmissionView.safeParse(queuedSubmissionExample).error).toBeUndefined();
    expect(SubmissionView.safeParse(committedSubmissionExample).error).toBeUndefined();
    for (const error of Object.values(ERROR_EXAMPLES))
      expect(ErrorBody.safeParse({ error }).error).toBeUndefined();
  });
});
