// Execution like the real participant: signatures verified independently (node:crypto keys here), the hash
// recomputed from the submitted bytes, deduplication by change id, in-flight detection, max record time,
// archived inputs, and the ambiguous "timeout after commit" fault followed by a deduplicated retry.
import { randomUUID } from 'node:crypto';
import { decodePreparedTransactionBase64, encodePreparedTransaction } from '@quill/canton/transaction';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type Alg,
  COIN,
  call,
  createdOf,
  executeBody,
  newKey,
  onboard,
  type Party,
  prepareBody,
  prepareOn,
  run,
  type Sandbox,
  sandboxWithAdmin,
  signWith,
  tapCommand,
} from './helpers.ts';

let sb: Sandbox;
let admin: string;
let alice: Party;
let bob: Party;
const EXEC = '/v2/interactive-submission/executeAndWaitForTransaction';
const EXEC_WAIT = '/v2/interactive-submission/executeAndWait';

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  alice = await onboard(sb, admin, 'ed25519');
  bob = await onboard(sb, admin, 'p256');
});
afterAll(async () => {
  await sb?.close();
});

const prepare = (party: Party, commands: unknown[], extra: Record<string, unknown> = {}) =>
  prepareOn(sb, party, commands, extra);

const commandIdOf = (prepared: { preparedTransaction: string }) =>
  decodePreparedTransactionBase64(prepared.preparedTransaction).metadata?.submitterInfo?.commandId ?? '';

describe('signatures', () => {
  test.each<Alg>(['ed25519', 'p256', 'p384', 'secp256k1'])(
    'a correct %s signature commits exactly once',
    async (alg) => {
      const party = await onboard(sb, admin, alg);
      const prepared = await prepare(party, [tapCommand(sb, party.partyId, '5.0000000000')]);
      const ok = await call(sb.url, 'POST', EXEC, executeBody(party, prepared), party.token);
      expect(ok.status, ok.text).toBe(200);
      expect(ok.json.transaction.externalTransactionHash).toBe(
        Buffer.from(prepared.preparedTransactionHash, 'base64').toString('hex'),
      );
      expect(sb.state.commits.get(commandIdOf(prepared))).toBe(1);
    },
  );

  test('wrong key, tampered byte, another scheme and a missing party signature → FAILED_TO_EXECUTE_TRANSACTION', async () => {
    const prepared = await prepare(alice, [tapCommand(sb, alice.partyId, '1.0000000000')]);
    const hash = Buffer.from(prepared.preparedTransactionHash, 'base64');
    const attempts: Record<string, unknown>[] = [];
    // Signed by another key, claimed as the party's key.
    attempts.push(
      executeBody(alice, prepared, {
        partySignatures: {
          signatures: [
            { party: alice.partyId, signatures: [signWith(newKey('ed25519'), hash, alice.fingerprint)] },
          ],
        },
      }),
    );
    // A tampered amount, re-encoded (valid protobuf), with the original signature.
    const tx = decodePreparedTransactionBase64(prepared.preparedTransaction);
    const text = JSON.stringify(tx, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)).replace(
      '"1.0000000000"',
      '"9.0000000000"',
    );
    const tampered = JSON.parse(text, (_k, v) =>
      typeof v === 'string' && /^-?\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : v,
    );
    const revived = reviveBytes(tampered);
    attempts.push(
      executeBody(alice, {
        ...prepared,
        preparedTransaction: Buffer.from(encodePreparedTransaction(revived)).toString('base64'),
      }),
    );
    // One flipped byte in the raw bytes.
    const raw = Buffer.from(prepared.preparedTransaction, 'base64');
    raw[raw.length - 3] = (raw[raw.length - 3] ?? 0) ^ 0x01;
    attempts.push(executeBody(alice, { ...prepared, preparedTransaction: raw.toString('base64') }));
    // The V2 signature submitted as V3.
    attempts.push(executeBody(alice, prepared, { hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3' }));
    // No signature for the acting party.
    attempts.push(executeBody(alice, prepared, { partySignatures: { signatures: [] } }));
    for (const body of attempts) {
      const r = await call(sb.url, 'POST', EXEC, body, alice.token);
      expect([r.status, r.json?.code], r.text).toEqual([400, 'FAILED_TO_EXECUTE_TRANSACTION']);
    }
    expect(sb.state.commits.get(commandIdOf(prepared))).toBeUndefined();
    // The untouched submission still commits.
    expect((await call(sb.url, 'POST', EXEC, executeBody(alice, prepared), alice.token)).status).toBe(200);
  });

  test('signatures of more than one party → 400 INVALID_ARGUMENT, only single-party submissions (INTERFACE.md 2, 8)', async () => {
    const prepared = await prepare(alice, [tapCommand(sb, alice.partyId, '1.0000000000')]);
    const hash = Buffer.from(prepared.preparedTransactionHash, 'base64');
    const own = (executeBody(alice, prepared) as { partySignatures: { signatures: unknown[] } })
      .partySignatures.signatures;
    const body = executeBody(alice, prepared, {
      partySignatures: {
        signatures: [
          ...own,
          { party: bob.partyId, signatures: [signWith(newKey('p256'), hash, bob.fingerprint)] },
        ],
      },
    });
    for (const path of [EXEC, EXEC_WAIT]) {
      const r = await call(sb.url, 'POST', path, body, alice.token);
      expect([r.status, r.json?.code, r.json?.errorCategory], r.text).toEqual([400, 'INVALID_ARGUMENT', 8]);
      expect(r.json?.cause).toContain('only single-party submissions are supported');
    }
    expect(sb.state.commits.get(commandIdOf(prepared))).toBeUndefined();
    // The same submission with the acting party's signature alone commits.
    expect((await call(sb.url, 'POST', EXEC, executeBody(alice, prepared), alice.token)).status).toBe(200);
  });

  test('executing for a party the user may not act as → 403', async () => {
    const prepared = await prepare(alice, [tapCommand(sb, alice.partyId, '1.0000000000')]);
    const r = await call(
      sb.url,
      'POST',
      EXEC,
      executeBody(alice, prepared, { userId: bob.userId }),
      bob.token,
    );
    expect([r.status, r.json?.code]).toEqual([403, 'NA']);
  });
});

/** protobuf-ts bytes fields round-tripped through JSON become objects: turn them back into Uint8Array. */
function reviveBytes<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reviveBytes) as T;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length > 0 && entries.every(([k, v]) => /^\d+$/.test(k) && typeof v === 'number')) {
      return new Uint8Array(entries.map(([, v]) => v as number)) as T;
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, reviveBytes(v)])) as T;
  }
  return value;
}

describe('deduplication, in-flight, time, inputs', () => {
  test('a resubmission within the dedup period → DUPLICATE_COMMAND with the completion offset', async () => {
    const prepared = await prepare(alice, [tapCommand(sb, alice.partyId, '2.0000000000')]);
    const first = await call(sb.url, 'POST', EXEC_WAIT, executeBody(alice, prepared), alice.token);
    expect(first.status).toBe(200);
    const again = await call(
      sb.url,
      'POST',
      EXEC_WAIT,
      executeBody(alice, prepared, {
        deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 600, nanos: 0 } } },
      }),
      alice.token,
    );
    expect([again.status, again.json.code]).toEqual([409, 'DUPLICATE_COMMAND']);
    expect(again.json.context.completion_offset).toBe(String(first.json.completionOffset));
    // DuplicateCommandReject: definite, in the context only (the body's field is null after gRPC).
    expect([again.json.definiteAnswer, again.json.context.definite_answer]).toEqual([null, 'true']);
    expect(again.json.correlationId).toBe(JSON.parse(again.text).correlationId);
    expect(again.json.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sb.state.commits.get(commandIdOf(prepared))).toBe(1);
    // Outside a 1-second period it is no duplicate any more, but the same signed transaction (same contract
    // ids, same transaction uuid) still cannot commit twice.
    sb.state.clockOffsetMs += 2000;
    const later = await call(
      sb.url,
      'POST',
      EXEC_WAIT,
      executeBody(alice, prepared, {
        deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 1, nanos: 0 } } },
      }),
      alice.token,
    );
    expect([later.status, later.json.code]).toEqual([400, 'FAILED_TO_EXECUTE_TRANSACTION']);
    expect(sb.state.commits.get(commandIdOf(prepared))).toBe(1);
    // A new transaction for the same command id outside the period commits.
    const fresh = await prepare(alice, [tapCommand(sb, alice.partyId, '2.0000000000')], {
      commandId: commandIdOf(prepared),
    });
    const second = await call(
      sb.url,
      'POST',
      EXEC_WAIT,
      executeBody(alice, fresh, {
        deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 1, nanos: 0 } } },
      }),
      alice.token,
    );
    expect(second.status, second.text).toBe(200);
    expect(sb.state.commits.get(commandIdOf(prepared))).toBe(2);
    // A period longer than the maximum is no error (CommandsValidator has no such check): it reaches back to
    // the latest acceptance, a duplicate.
    const tooLong = await call(
      sb.url,
      'POST',
      EXEC_WAIT,
      executeBody(alice, prepared, {
        deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 10 ** 8, nanos: 0 } } },
      }),
      alice.token,
    );
    expect([tooLong.status, tooLong.json.code]).toEqual([409, 'DUPLICATE_COMMAND']);
  });

  test('concurrent execution of the same change id → SUBMISSION_ALREADY_IN_FLIGHT', async () => {
    sb.faults.configure({ rules: [{ kind: 'latency', endpoint: EXEC, latencyMs: 300, times: 1 }] });
    const prepared = await prepare(alice, [tapCommand(sb, alice.partyId, '3.0000000000')]);
    const slow = call(sb.url, 'POST', EXEC, executeBody(alice, prepared), alice.token);
    await new Promise((r) => setTimeout(r, 100));
    const second = await call(sb.url, 'POST', EXEC, executeBody(alice, prepared), alice.token);
    expect([second.status, second.json.code, second.json.retryInfo]).toEqual([
      409,
      'SUBMISSION_ALREADY_IN_FLIGHT',
      '1 second',
    ]);
    expect((await slow).status).toBe(200);
    sb.faults.configure({});
  });

  test.each([
    ['HASHING_SCHEME_VERSION_V2', 'NOT_SEQUENCED_TIMEOUT'],
    ['HASHING_SCHEME_VERSION_V3', 'LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED'],
  ])('past the max record time (%s) → %s, nothing committed', async (scheme, code) => {
    const maxRecordTime = new Date(Date.now() + sb.state.clockOffsetMs + 1000).toISOString();
    const prepared = await prepare(alice, [tapCommand(sb, alice.partyId, '4.0000000000')], {
      maxRecordTime,
      hashingSchemeVersion: scheme,
    });
    sb.state.clockOffsetMs += 5000;
    const r = await call(sb.url, 'POST', EXEC, executeBody(alice, prepared), alice.token);
    expect([r.status, r.json.code]).toEqual([409, code]);
    expect(sb.state.commits.get(commandIdOf(prepared))).toBeUndefined();
  });

  test('an archived input → LOCAL_VERDICT_INACTIVE_CONTRACTS', async () => {
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
    const a = await prepare(alice, [spend('10.0000000000')]);
    const b = await prepare(alice, [spend('20.0000000000')]);
    expect((await call(sb.url, 'POST', EXEC, executeBody(alice, a), alice.token)).status).toBe(200);
    const r = await call(sb.url, 'POST', EXEC, executeBody(alice, b), alice.token);
    expect([r.status, r.json.code]).toEqual([404, 'LOCAL_VERDICT_INACTIVE_CONTRACTS']);
    const again = await call(
      sb.url,
      'POST',
      '/v2/interactive-submission/prepare',
      prepareBody(alice, [spend('1.0000000000')]),
      alice.token,
    );
    expect([again.status, again.json.code]).toEqual([404, 'CONTRACT_NOT_FOUND']);
  });
});

describe('faults', () => {
  test.each(['504', '503'] as const)(
    'timeout after committing (%s), then a retry → DUPLICATE_COMMAND; committed once',
    async (answer) => {
      sb.faults.configure({ rules: [{ kind: 'timeoutAfterCommit', endpoint: EXEC, answer, times: 1 }] });
      const prepared = await prepare(alice, [tapCommand(sb, alice.partyId, '6.0000000000')]);
      const first = await call(sb.url, 'POST', EXEC, executeBody(alice, prepared), alice.token);
      if (answer === '504')
        expect([first.status, first.json.code, first.json.context.definite_answer]).toEqual([
          504,
          'REQUEST_TIME_OUT',
          'false',
        ]);
      else expect([first.status, first.contentType.startsWith('text/plain')]).toEqual([503, true]);
      const retry = await call(
        sb.url,
        'POST',
        EXEC,
        executeBody(alice, prepared, { submissionId: randomUUID() }),
        alice.token,
      );
      expect([retry.status, retry.json.code]).toEqual([409, 'DUPLICATE_COMMAND']);
      const counts = await call(sb.url, 'GET', '/admin/commits', undefined, admin);
      expect(counts.json.commits[commandIdOf(prepared)]).toBe(1);
    },
  );

  test('a dropped connection after committing, 503/504 before committing, and a paused ledger', async () => {
    sb.faults.configure({
      rules: [{ kind: 'timeoutAfterCommit', endpoint: EXEC, answer: 'drop', times: 1 }],
    });
    const prepared = await prepare(alice, [tapCommand(sb, alice.partyId, '7.0000000000')]);
    await expect(call(sb.url, 'POST', EXEC, executeBody(alice, prepared), alice.token)).rejects.toThrow();
    expect(sb.state.commits.get(commandIdOf(prepared))).toBe(1);

    const set = await call(
      sb.url,
      'POST',
      '/admin/faults',
      {
        rules: [
          { kind: 'unavailable', endpoint: '/v2/state/*', times: 1 },
          { kind: 'timeout', endpoint: EXEC, times: 1 },
        ],
      },
      admin,
    );
    expect(set.status, set.text).toBe(200);
    const unavailable = await call(sb.url, 'GET', '/v2/state/ledger-end', undefined, admin);
    expect([unavailable.status, unavailable.contentType.startsWith('text/plain')]).toEqual([503, true]);
    const p2 = await prepare(alice, [tapCommand(sb, alice.partyId, '8.0000000000')]);
    const timeout = await call(sb.url, 'POST', EXEC, executeBody(alice, p2), alice.token);
    expect([timeout.status, timeout.json.code]).toEqual([504, 'REQUEST_TIME_OUT']);
    expect(sb.state.commits.get(commandIdOf(p2))).toBeUndefined();

    await call(sb.url, 'POST', '/admin/pause', {}, admin);
    const pending = call(sb.url, 'POST', EXEC, executeBody(alice, p2), alice.token);
    await new Promise((r) => setTimeout(r, 150));
    expect(sb.state.commits.get(commandIdOf(p2))).toBeUndefined();
    await call(sb.url, 'POST', '/admin/resume', {}, admin);
    expect((await pending).status).toBe(200);
    expect(sb.state.commits.get(commandIdOf(p2))).toBe(1);
    sb.faults.configure({});
  });

  test('probabilistic faults are reproducible with a seed', () => {
    const pick = (seed: number) => {
      sb.faults.configure({ seed, rules: [{ kind: 'unavailable', probability: 0.5 }] });
      return Array.from({ length: 20 }, () => sb.faults.pick('unavailable', '/x') !== undefined);
    };
    expect(pick(42)).toEqual(pick(42));
    expect(pick(42).filter(Boolean).length).toBeGreaterThan(2);
    sb.faults.configure({});
  });
});
