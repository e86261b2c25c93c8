// The execute path's answers as the 3.5 participant gives them (issue 26; review tables A28, A29, A33, A34,
// A36, A37, A2, A22, A41, A4). Each test names the participant's rule (Scala class and file) it copies, and
// checks status, code, category, context keys and the body against the 3.5 spec.
import { randomUUID } from 'node:crypto';
import { ledgerSpec } from '@quill/canton/testing/openapi';
import { decodePreparedTransactionBase64 } from '@quill/canton/transaction';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { err } from '../src/errors.ts';
import {
  COIN,
  call,
  createdOf,
  executeBody,
  expectLedgerError,
  onboard,
  type Party,
  type Prepared,
  prepareOn,
  run,
  type Sandbox,
  sandboxWithAdmin,
  tapCommand,
} from './helpers.ts';

const EXECUTE = '/v2/interactive-submission/execute';
const EXEC_WAIT = '/v2/interactive-submission/executeAndWait';
const EXEC_TX = '/v2/interactive-submission/executeAndWaitForTransaction';
const EIGHT_DAYS = 8 * 24 * 3600;

let sb: Sandbox;
let admin: string;
let alice: Party;
let bob: Party;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  alice = await onboard(sb, admin, 'ed25519', 'alice');
  bob = await onboard(sb, admin, 'p256', 'bob');
});
afterAll(async () => {
  await sb?.close();
});

const tap = (party: Party, extra: Record<string, unknown> = {}) =>
  prepareOn(sb, party, [tapCommand(sb, party.partyId, '1.0000000000')], extra);

const commandIdOf = (prepared: Prepared) =>
  decodePreparedTransactionBase64(prepared.preparedTransaction).metadata?.submitterInfo?.commandId ?? '';

function refused(path: string, body: unknown, status: number, code: string, token = alice.token) {
  return expectLedgerError(sb.url, { specPath: path, method: 'POST', path, body, token }, status, code);
}

interface CompletionValue {
  commandId: string;
  submissionId: string;
  updateId: string;
  offset: number;
  status: { code: number; message: string };
  traceContext: { traceparent: string } | null;
}

/** The completions of `party` after `begin`, validated against the spec. */
async function completionsAfter(party: Party, begin: number): Promise<CompletionValue[]> {
  const list = await call(
    sb.url,
    'POST',
    '/v2/commands/completions?stream_idle_timeout_ms=50',
    { userId: party.userId, parties: [party.partyId], beginExclusive: begin },
    party.token,
  );
  expect(list.status, list.text).toBe(200);
  ledgerSpec().expectValidResponse('/v2/commands/completions', 'post', 200, list.json);
  return list.json
    .map(
      (c: { completionResponse: { Completion?: { value: CompletionValue } } }) =>
        c.completionResponse.Completion?.value,
    )
    .filter(Boolean);
}

describe('DUPLICATE_COMMAND is CommandDeduplicationError.DuplicateCommandReject (participant/sync/CommandDeduplicationError.scala)', () => {
  test.each([EXEC_WAIT, EXEC_TX])(
    '%s: cause, definite_answer "true", existingSubmissionId Some(id), changeId, completion_offset; body definiteAnswer null; a failed completion at a new offset',
    async (path) => {
      const prepared = await tap(alice);
      const first = executeBody(alice, prepared);
      const ok = await call(sb.url, 'POST', EXEC_WAIT, first, alice.token);
      expect(ok.status, ok.text).toBe(200);
      const endBefore = sb.state.log.end;
      const retry = executeBody(alice, prepared, {
        deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 600, nanos: 0 } } },
      });
      const e = await refused(path, retry, 409, 'DUPLICATE_COMMAND');
      expect(e.cause).toBe('Command submission already exists.');
      expect([e.errorCategory, e.grpcCodeValue, e.retryInfo, e.definiteAnswer]).toEqual([10, 6, null, null]);
      expect(e.context).toMatchObject({
        definite_answer: 'true',
        existingSubmissionId: `Some(${first.submissionId})`,
        changeId: `ChangeId(${alice.userId},${commandIdOf(prepared)},Set(${alice.partyId}))`,
        completion_offset: String(ok.json.completionOffset),
        accepted: 'true',
      });
      expect(e.correlationId).toBe(retry.submissionId);
      // ProtocolProcessor.submitWithTracking → observeSubmissionError: the rejection is a completion too.
      expect(sb.state.log.end).toBe(endBefore + 1);
      const failed = (await completionsAfter(alice, endBefore)).filter(
        (c) => c.submissionId === retry.submissionId,
      );
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({
        commandId: commandIdOf(prepared),
        updateId: '',
        offset: endBefore + 1,
      });
      expect(failed[0]?.status.code).toBe(6);
      expect(failed[0]?.status.message).toMatch(/^DUPLICATE_COMMAND\(10,[^)]*\): Command submission already/);
      expect(sb.state.commits.get(commandIdOf(prepared))).toBe(1);
    },
  );
});

test('SUBMISSION_ALREADY_IN_FLIGHT: another submission id gets the participant variant (TransactionProcessor.SubmissionErrors.SubmissionAlreadyInFlight), the same one the tracker variant (ConsistencyErrors.SubmissionAlreadyInFlight via SubmissionTracker.Errors.duplicated)', async () => {
  sb.faults.configure({ rules: [{ kind: 'latency', endpoint: EXEC_WAIT, latencyMs: 400, times: 1 }] });
  try {
    const prepared = await tap(alice);
    const first = executeBody(alice, prepared);
    const slow = call(sb.url, 'POST', EXEC_WAIT, first, alice.token);
    await new Promise((r) => setTimeout(r, 150));
    const other = await refused(EXEC_WAIT, executeBody(alice, prepared), 409, 'SUBMISSION_ALREADY_IN_FLIGHT');
    expect(other.cause).toBe('The submission is already in-flight');
    expect([other.errorCategory, other.retryInfo, other.context.definite_answer]).toEqual([
      2,
      '1 second',
      'false',
    ]);
    expect(other.context).toMatchObject({
      existingSubmissionId: `Some(${first.submissionId})`,
      changeId: `ChangeId(${alice.userId},${commandIdOf(prepared)},Set(${alice.partyId}))`,
    });
    expect(other.context.existingSubmissionSynchronizerId).toBeTruthy();
    const same = await refused(EXEC_WAIT, first, 409, 'SUBMISSION_ALREADY_IN_FLIGHT');
    expect(same.cause).toBe(
      'A submission with the given change ID (user ID, command ID, actAs) and submission ID is already in flight',
    );
    expect((await slow).status).toBe(200);
  } finally {
    sb.faults.configure({});
  }
});

describe('maxRecordTime passed (TransactionProcessingSteps max sequencing time; TimeValidator.checkTimestamps)', () => {
  async function pastMaxRecordTime(scheme: string) {
    const maxRecordTime = new Date(Date.now() + sb.state.clockOffsetMs + 1000).toISOString();
    const prepared = await tap(bob, { maxRecordTime, hashingSchemeVersion: scheme });
    sb.state.clockOffsetMs += 5000;
    return { prepared, maxRecordTime };
  }

  test('V3 (protocol 35): LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED, 409, category 2, definite false (LocalRejectError.TimeRejects.MaxRecordTimeExceeded)', async () => {
    const { prepared, maxRecordTime } = await pastMaxRecordTime('HASHING_SCHEME_VERSION_V3');
    const endBefore = sb.state.log.end;
    const body = executeBody(bob, prepared);
    const e = await refused(EXEC_TX, body, 409, 'LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED', bob.token);
    expect(e.cause).toMatch(
      /^Rejected transaction as record time exceeds the maximum record time: recordTime=\S+Z, maxRecordTime=\S+Z$/,
    );
    expect(e.cause).toContain(`maxRecordTime=${maxRecordTime.replace('.000Z', 'Z')}`);
    expect([e.errorCategory, e.grpcCodeValue, e.retryInfo, e.definiteAnswer]).toEqual([
      2,
      10,
      '1 second',
      null,
    ]);
    expect(e.context.definite_answer).toBe('false');
    const failed = (await completionsAfter(bob, endBefore)).find((c) => c.submissionId === body.submissionId);
    expect(failed?.status.code).toBe(10);
    expect(failed?.status.message).toContain('LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED');
    expect(sb.state.commits.get(commandIdOf(prepared))).toBeUndefined();
  });

  test("V2 (protocol 34): NOT_SEQUENCED_TIMEOUT with the participant's cause, definite false (TransactionProcessor.SubmissionErrors.TimeoutError)", async () => {
    const { prepared } = await pastMaxRecordTime('HASHING_SCHEME_VERSION_V2');
    const endBefore = sb.state.log.end;
    const e = await refused(EXEC_WAIT, executeBody(bob, prepared), 409, 'NOT_SEQUENCED_TIMEOUT', bob.token);
    expect(e.cause).toBe(
      'Transaction was not sequenced within the pre-defined max sequencing time and has therefore timed out',
    );
    expect([e.errorCategory, e.retryInfo, e.definiteAnswer, e.context.definite_answer]).toEqual([
      2,
      '1 second',
      null,
      'false',
    ]);
    expect(sb.state.log.end).toBe(endBefore + 1);
  });
});

test('an archived input is LOCAL_VERDICT_INACTIVE_CONTRACTS: category 11, 404, not retryable, definite false, resource CONTRACT_ID (LocalRejectError.ConsistencyRejections.InactiveContracts)', async () => {
  const tapped = await run(sb, alice, [tapCommand(sb, alice.partyId, '50.0000000000')]);
  const holding = createdOf(tapped, 'Holding', alice.partyId)[0]!;
  const spend = (amount: string) => ({
    ExerciseCommand: {
      templateId: COIN('Holding'),
      contractId: holding,
      choice: 'Holding_Transfer',
      choiceArgument: { receiver: bob.partyId, amount },
    },
  });
  const a = await prepareOn(sb, alice, [spend('10.0000000000')]);
  const b = await prepareOn(sb, alice, [spend('20.0000000000')]);
  expect((await call(sb.url, 'POST', EXEC_TX, executeBody(alice, a), alice.token)).status).toBe(200);
  const endBefore = sb.state.log.end;
  const body = executeBody(alice, b);
  const e = await refused(EXEC_TX, body, 404, 'LOCAL_VERDICT_INACTIVE_CONTRACTS');
  expect(e.cause).toBe('Rejected transaction is referring to inactive contracts ');
  expect([e.errorCategory, e.grpcCodeValue, e.retryInfo, e.definiteAnswer]).toEqual([11, 5, null, null]);
  expect(e.resources).toEqual([['CONTRACT_ID', holding]]);
  expect(e.context).toMatchObject({ definite_answer: 'false', CONTRACT_ID: `Seq(${holding})` });
  const failed = (await completionsAfter(alice, endBefore)).find((c) => c.submissionId === body.submissionId);
  expect(failed?.status.code).toBe(5);
});

describe('submissionId has no decoder default (JsExecuteSubmission*Request in JsInteractiveSubmissionService.scala)', () => {
  test.each([EXECUTE, EXEC_WAIT, EXEC_TX])(
    '%s: a body without submissionId is 400 text/plain; "" is generated (FieldValidator.validateSubmissionId)',
    async (path) => {
      const prepared = await tap(alice);
      const { submissionId: _, ...without } = executeBody(alice, prepared);
      const endBefore = sb.state.log.end;
      const refusedBody = await call(sb.url, 'POST', path, without, alice.token);
      expect([refusedBody.status, refusedBody.contentType]).toEqual([
        400,
        expect.stringContaining('text/plain'),
      ]);
      expect(refusedBody.text).toMatch(/^Invalid value for: body/);
      const nullBody = await call(sb.url, 'POST', path, { ...without, submissionId: null }, alice.token);
      expect(nullBody.status).toBe(400);
      expect(sb.state.log.end).toBe(endBefore);
      const empty = await call(sb.url, 'POST', path, { ...without, submissionId: '' }, alice.token);
      expect(empty.status, empty.text).toBe(200);
      const done = (await completionsAfter(alice, endBefore)).find(
        (c) => c.commandId === commandIdOf(prepared),
      );
      expect(done?.submissionId).toMatch(/^[0-9a-f-]{36}$/);
    },
  );
});

describe('validation errors are DamlErrorWithDefiniteAnswer (base/error/DamlError.scala; RequestValidationErrors.scala)', () => {
  test('MISSING_FIELD carries context.field_name and definite_answer "false" (MissingField.Reject)', async () => {
    const e = await refused(
      '/v2/interactive-submission/prepare',
      {
        userId: alice.userId,
        commandId: randomUUID(),
        commands: [],
        actAs: [alice.partyId],
        readAs: [],
        disclosedContracts: [],
        synchronizerId: '',
        packageIdSelectionPreference: [],
      },
      400,
      'MISSING_FIELD',
    );
    expect(e.context).toMatchObject({ field_name: 'commands', definite_answer: 'false', category: '8' });
    expect(e.definiteAnswer).toBeNull();
  });

  test('INVALID_FIELD carries definite_answer "false" (InvalidField.Reject); nothing is recorded', async () => {
    const endBefore = sb.state.log.end;
    const e = await refused(
      EXEC_WAIT,
      executeBody(alice, await tap(alice), { hashingSchemeVersion: 'HASHING_SCHEME_VERSION_UNSPECIFIED' }),
      400,
      'INVALID_FIELD',
    );
    expect([e.context.definite_answer, e.definiteAnswer]).toEqual(['false', null]);
    expect(sb.state.log.end).toBe(endBefore);
  });
});

test('FAILED_TO_EXECUTE_TRANSACTION: "The participant failed to execute the transaction: …", definite false (CommandExecutionErrors.InteractiveSubmissionExecuteError)', async () => {
  const e = await refused(
    EXEC_WAIT,
    executeBody(alice, await tap(alice), { partySignatures: { signatures: [] } }),
    400,
    'FAILED_TO_EXECUTE_TRANSACTION',
  );
  expect(e.cause).toMatch(/^The participant failed to execute the transaction: /);
  expect([e.errorCategory, e.context.definite_answer, e.definiteAnswer]).toEqual([8, 'false', null]);
});

test('an internal error made in the JSON layer is LEDGER_API_INTERNAL_ERROR (json/v2/Endpoints.handleErrorResponse, LedgerApiErrors.InternalError.Generic)', () => {
  const e = err.internal();
  const body = e.body();
  ledgerSpec().expectValidComponent('JsCantonError', body);
  expect([e.status, body.code, body.errorCategory, body.grpcCodeValue, body.retryInfo]).toEqual([
    500,
    'LEDGER_API_INTERNAL_ERROR',
    4,
    13,
    null,
  ]);
  // JsCantonError.fromErrorCode: the body carries the DamlErrorWithDefiniteAnswer's definiteAnswer.
  expect(body.definiteAnswer).toBe(false);
});

describe('traceContext (transaction.proto: "a unique ledger-api-server generated trace context" when none is given)', () => {
  test('a transaction committed without traceparent carries a generated one; a sent one is kept', async () => {
    const generated = await call(sb.url, 'POST', EXEC_TX, executeBody(bob, await tap(bob)), bob.token);
    expect(generated.status, generated.text).toBe(200);
    const traceparent = generated.json.transaction.traceContext?.traceparent;
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const sent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const kept = await call(sb.url, 'POST', EXEC_TX, executeBody(bob, await tap(bob)), bob.token, {
      traceparent: sent,
    });
    expect(kept.json.transaction.traceContext.traceparent).toBe(sent);
    const read = await call(
      sb.url,
      'POST',
      '/v2/updates/transaction-by-id',
      { updateId: generated.json.transaction.updateId, requestingParties: [bob.partyId] },
      bob.token,
    );
    expect(read.json.transaction.traceContext.traceparent).toBe(traceparent);
    const completion = (await completionsAfter(bob, generated.json.transaction.offset - 1))[0];
    expect(completion?.traceContext?.traceparent).toBe(traceparent);
  });
});

// Last: it prunes the ledger.
describe('deduplication periods (CommandsValidator.validateDeduplicationPeriod; CommandDeduplicator.checkDuplication)', () => {
  const duration = (seconds: number) => ({
    deduplicationPeriod: { DeduplicationDuration: { value: { seconds, nanos: 0 } } },
  });

  test('a negative duration is INVALID_FIELD "Duration must be positive" (DeduplicationPeriodValidator), synchronous', async () => {
    const endBefore = sb.state.log.end;
    const e = await refused(
      EXEC_WAIT,
      executeBody(alice, await tap(alice), duration(-1)),
      400,
      'INVALID_FIELD',
    );
    expect(e.cause).toContain('Invalid field deduplication_period: Duration must be positive');
    expect(sb.state.log.end).toBe(endBefore);
  });

  test('a duration reaching before the first timestamp starts too early, with longest_duration (DeduplicationPeriodStartsTooEarlyErrorWithDuration)', async () => {
    const e = await refused(
      EXEC_WAIT,
      executeBody(alice, await tap(alice), duration(10 ** 11)),
      400,
      'INVALID_DEDUPLICATION_PERIOD',
    );
    expect(e.context.longest_duration).toMatch(/^PT\d+H/);
    expect(e.context.definite_answer).toBe('true');
  });

  test('a duration above the 7-day maximum is accepted while nothing was pruned; after pruning it starts too early → INVALID_DEDUPLICATION_PERIOD with earliest_offset (DeduplicationPeriodStartsTooEarlyErrorWithOffset)', async () => {
    expect(sb.state.log.prunedUpTo).toBe(0);
    const ok = await call(
      sb.url,
      'POST',
      EXEC_WAIT,
      executeBody(alice, await tap(alice), duration(EIGHT_DAYS)),
      alice.token,
    );
    expect(ok.status, ok.text).toBe(200);

    const pruneTo = sb.state.log.end;
    const pruned = await call(sb.url, 'POST', '/admin/prune', { offset: pruneTo }, admin);
    expect(pruned.status, pruned.text).toBe(200);
    const prepared = await tap(alice);
    const body = executeBody(alice, prepared, duration(EIGHT_DAYS));
    const e = await refused(EXEC_WAIT, body, 400, 'INVALID_DEDUPLICATION_PERIOD');
    expect(e.cause).toMatch(/^Deduplication period starts too early\./);
    expect([e.errorCategory, e.grpcCodeValue, e.definiteAnswer]).toEqual([9, 9, null]);
    expect(e.context).toMatchObject({
      earliest_offset: String(pruneTo),
      definite_answer: 'true',
      requestedPeriod: 'DeduplicationDuration(PT192H)',
      changeId: `ChangeId(${alice.userId},${commandIdOf(prepared)},Set(${alice.partyId}))`,
    });
    // A rejection after in-flight registration: a failed completion at a new offset.
    expect(sb.state.log.end).toBe(pruneTo + 1);
    const failed = (await completionsAfter(alice, pruneTo)).find((c) => c.submissionId === body.submissionId);
    expect(failed?.status.code).toBe(9);
    // A deduplication offset before the pruning is too early as well; the maximum itself still commits.
    const before = executeBody(alice, prepared, {
      deduplicationPeriod: { DeduplicationOffset: { value: 0 } },
    });
    const o = await refused(EXEC_WAIT, before, 400, 'INVALID_DEDUPLICATION_PERIOD');
    expect(o.context.earliest_offset).toBe(String(pruneTo));
    const max = await call(sb.url, 'POST', EXEC_WAIT, executeBody(alice, prepared), alice.token);
    expect(max.status, max.text).toBe(200);
  });
});
