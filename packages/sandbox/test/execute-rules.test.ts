// Execution's request rules as on the participant (issue 19, items 1-3): read rights for the events a
// transactionFormat asks for (RequiredClaims.transactionFormatClaims), the ledger time chosen from minLedgerTime
// and refused outside ledgerTimeRecordTimeTolerance (CommandsValidator.validateLedgerTime, TimeValidator), and
// the submission id and hashing scheme as SubmitRequestValidator.validateExecute checks them.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  call,
  executeBody,
  expectLedgerError,
  expectRedacted,
  onboard,
  type Party,
  prepareOn,
  type Sandbox,
  sandboxWithAdmin,
  tapCommand,
} from './helpers.ts';

const EXEC = '/v2/interactive-submission/executeAndWaitForTransaction';
const EXEC_WAIT = '/v2/interactive-submission/executeAndWait';
const TOLERANCE_SECONDS = 60;

let sb: Sandbox;
let admin: string;
let alice: Party;
let bob: Party;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin({ ledger: { ledgerTimeToleranceSeconds: TOLERANCE_SECONDS } }));
  alice = await onboard(sb, admin, 'ed25519', 'alice');
  bob = await onboard(sb, admin, 'p256', 'bob');
});
afterAll(async () => {
  await sb?.close();
});

const prepared = (party: Party) => prepareOn(sb, party, [tapCommand(sb, party.partyId, '1.0000000000')]);

function refused(path: string, body: unknown, token: string, status: number, code: string) {
  return expectLedgerError(sb.url, { specPath: path, method: 'POST', path, body, token }, status, code);
}

/** 403 with the participant's redacted body (DecodedCantonError.redactedError). */
function denied(body: unknown, token: string) {
  return expectRedacted(sb.url, { specPath: EXEC, method: 'POST', path: EXEC, body, token }, 403);
}

const formatFor = (eventFormat: Record<string, unknown>) => ({
  transactionFormat: { eventFormat, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
});

describe('rights on executeAndWaitForTransaction (item 1)', () => {
  test("a format asking for another party's events needs CanReadAs that party: 403 without, nothing committed", async () => {
    const endBefore = sb.state.log.end;
    await denied(
      executeBody(alice, await prepared(alice), formatFor({ filtersByParty: { [bob.partyId]: {} } })),
      alice.token,
    );
    expect(sb.state.log.end).toBe(endBefore);
  });

  test('a format for any party needs CanReadAsAnyParty', async () => {
    await denied(
      executeBody(alice, await prepared(alice), formatFor({ filtersForAnyParty: {} })),
      alice.token,
    );
  });

  test('with the rights granted, the same requests commit', async () => {
    const own = await call(
      sb.url,
      'POST',
      EXEC,
      executeBody(alice, await prepared(alice), formatFor({ filtersByParty: { [alice.partyId]: {} } })),
      alice.token,
    );
    expect(own.status, own.text).toBe(200);
    const granted = await call(
      sb.url,
      'POST',
      `/v2/users/${alice.userId}/rights`,
      {
        userId: alice.userId,
        rights: [
          { kind: { CanReadAs: { value: { party: bob.partyId } } } },
          { kind: { CanReadAsAnyParty: { value: {} } } },
        ],
        identityProviderId: '',
      },
      admin,
    );
    expect(granted.status, granted.text).toBe(200);
    for (const f of [{ filtersByParty: { [bob.partyId]: {} } }, { filtersForAnyParty: {} }]) {
      const ok = await call(
        sb.url,
        'POST',
        EXEC,
        executeBody(alice, await prepared(alice), formatFor(f)),
        alice.token,
      );
      expect(ok.status, ok.text).toBe(200);
    }
  });
});

describe('ledger time (item 2)', () => {
  const effectiveAt = async (minLedgerTime: unknown) => {
    const a = await call(
      sb.url,
      'POST',
      EXEC,
      executeBody(bob, await prepared(bob), { minLedgerTime }),
      bob.token,
    );
    expect(a.status, a.text).toBe(200);
    return Date.parse(a.json.transaction.effectiveAt);
  };

  test('MinLedgerTimeRel and MinLedgerTimeAbs move the ledger effective time forward, within the tolerance', async () => {
    const t0 = Date.now();
    const rel = await effectiveAt({ time: { MinLedgerTimeRel: { value: { seconds: 30, nanos: 0 } } } });
    expect(rel).toBeGreaterThanOrEqual(t0 + 30_000);
    expect(rel).toBeLessThan(Date.now() + 31_000);
    const abs = new Date(Date.now() + 45_000).toISOString();
    expect(await effectiveAt({ time: { MinLedgerTimeAbs: { value: abs } } })).toBe(Date.parse(abs));
    // An absolute time in the past does not move it back: the ledger time is then the record time.
    const past = await effectiveAt({ time: { MinLedgerTimeAbs: { value: '2020-01-01T00:00:00Z' } } });
    expect(past).toBeGreaterThanOrEqual(t0);
  });

  test('beyond ledgerTimeRecordTimeTolerance it is refused with LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND', async () => {
    // Each refusal is a failed completion (a local verdict after sequencing): the ledger end moves by one.
    const endBefore = sb.state.log.end;
    const commitsBefore = sb.state.commits.size;
    for (const minLedgerTime of [
      { time: { MinLedgerTimeRel: { value: { seconds: TOLERANCE_SECONDS + 30, nanos: 0 } } } },
      { time: { MinLedgerTimeAbs: { value: new Date(Date.now() + 3_600_000).toISOString() } } },
    ]) {
      const e = await refused(
        EXEC_WAIT,
        executeBody(bob, await prepared(bob), { minLedgerTime }),
        bob.token,
        409,
        'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND',
      );
      expect(e.cause).toContain(`maxDelta=PT${TOLERANCE_SECONDS}S`);
      expect(e.errorCategory).toBe(2);
    }
    expect(sb.state.log.end).toBe(endBefore + 2);
    expect(sb.state.commits.size).toBe(commitsBefore);
  });
});

describe('submission id and hashing scheme (item 3, SubmitRequestValidator.validateExecute)', () => {
  test('HASHING_SCHEME_VERSION_UNSPECIFIED is INVALID_FIELD', async () => {
    const e = await refused(
      EXEC_WAIT,
      executeBody(alice, await prepared(alice), {
        hashingSchemeVersion: 'HASHING_SCHEME_VERSION_UNSPECIFIED',
      }),
      alice.token,
      400,
      'INVALID_FIELD',
    );
    expect(e.cause).toContain('Invalid field hashing_scheme_version: Unspecified version');
  });

  test('a malformed submissionId is INVALID_FIELD', async () => {
    const e = await refused(
      EXEC_WAIT,
      executeBody(alice, await prepared(alice), { submissionId: 'not ok!' }),
      alice.token,
      400,
      'INVALID_FIELD',
    );
    expect(e.cause).toContain('Invalid field submission_id: non expected character 0x21');
  });

  test('an empty submissionId is generated, and the completion carries it', async () => {
    const a = await call(
      sb.url,
      'POST',
      EXEC_WAIT,
      executeBody(alice, await prepared(alice), { submissionId: '' }),
      alice.token,
    );
    expect(a.status, a.text).toBe(200);
    const completions = await call(
      sb.url,
      'POST',
      '/v2/commands/completions',
      { userId: alice.userId, parties: [alice.partyId], beginExclusive: a.json.completionOffset - 1 },
      alice.token,
    );
    expect(completions.status, completions.text).toBe(200);
    const generated = completions.json
      .map(
        (c: { completionResponse: { Completion?: { value: { submissionId: string } } } }) =>
          c.completionResponse.Completion?.value.submissionId,
      )
      .filter(Boolean);
    expect(generated[0]).toMatch(/^[0-9a-f-]{36}$/);
  });
});
