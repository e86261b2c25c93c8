// The accept step's pure checks (src/submissions/accept/checks.ts): each refusal with its status and code, without
// Redis, a ledger or a key.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/auth/index.ts';
import {
  checkClaims,
  checkWindow,
  commandIdInUse,
  parseHash,
  requestedDedupSeconds,
  requestFingerprint,
} from '../../../src/submissions/accept/checks.ts';
import {
  commitDeadline,
  type InspectedTransaction,
  SubmissionRefused,
} from '../../../src/submissions/index.ts';
import { record } from '../../support/records.ts';

const T0 = Date.parse('2026-11-25T12:00:00Z');
const DAY = 86_400_000;
const hash = new Uint8Array(32).fill(7);
const hex = Buffer.from(hash).toString('hex');
const tx = (o: Partial<InspectedTransaction> = {}): InspectedTransaction => ({
  hash,
  actAs: ['alice::1220aa'],
  commandId: 'cmd-1',
  synchronizerId: 'sync::1220',
  preparationTime: new Date(T0),
  ...o,
});
const admin: Principal = { subject: 'ops', role: 'admin', party: undefined };
const req = { preparedTransaction: 'AAAA', hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2' as const };

function refusal(f: () => unknown): { status: number; code: string } | undefined {
  try {
    f();
  } catch (err) {
    if (err instanceof SubmissionRefused) return { status: err.status, code: err.code };
    throw err;
  }
  return undefined;
}

describe('checkClaims', () => {
  it('answers the party and hash when the claims hold (hash as base64 or hex)', () => {
    expect(checkClaims(tx(), req, admin)).toEqual({ party: 'alice::1220aa', hashHex: hex });
    const b64 = Buffer.from(hash).toString('base64');
    expect(
      checkClaims(tx(), { ...req, preparedTransactionHash: b64, party: 'alice::1220aa' }, admin).party,
    ).toBe('alice::1220aa');
  });

  it('refuses a wrong hash, several actAs parties, another party and a token scoped elsewhere', () => {
    expect(
      refusal(() => checkClaims(tx(), { ...req, preparedTransactionHash: 'ab'.repeat(32) }, admin)),
    ).toEqual({
      status: 422,
      code: 'HASH_MISMATCH',
    });
    expect(refusal(() => checkClaims(tx(), { ...req, preparedTransactionHash: 'nope' }, admin))).toEqual({
      status: 400,
      code: 'INVALID_HASH',
    });
    expect(refusal(() => checkClaims(tx({ actAs: ['a::1', 'b::2'] }), req, admin))).toEqual({
      status: 422,
      code: 'UNSUPPORTED_ACT_AS',
    });
    expect(refusal(() => checkClaims(tx(), { ...req, party: 'bob::1220bb' }, admin))).toEqual({
      status: 422,
      code: 'PARTY_MISMATCH',
    });
    expect(refusal(() => checkClaims(tx(), req, { ...admin, party: 'bob::1220bb' }))).toEqual({
      status: 403,
      code: 'PARTY_NOT_ALLOWED',
    });
  });
});

describe('checkWindow', () => {
  const window = { allowedSynchronizers: [] as string[], preparationToleranceMs: DAY, now: T0 };
  it('answers when the transaction can commit until: the earlier of max record time and the tolerance', () => {
    expect(checkWindow(tx(), window)).toBe(T0 + DAY);
    expect(checkWindow(tx({ maxRecordTime: new Date(T0 + 60_000) }), window)).toBe(T0 + 60_000);
    expect(checkWindow(tx({ preparationTime: undefined }), window)).toBeUndefined();
  });

  it('refuses another synchronizer, a passed max record time, an old or a future preparation time', () => {
    expect(refusal(() => checkWindow(tx(), { ...window, allowedSynchronizers: ['other::1'] }))).toEqual({
      status: 422,
      code: 'SYNCHRONIZER_NOT_ALLOWED',
    });
    expect(refusal(() => checkWindow(tx({ maxRecordTime: new Date(T0) }), window))?.code).toBe(
      'TRANSACTION_EXPIRED',
    );
    expect(refusal(() => checkWindow(tx({ preparationTime: new Date(T0 - DAY) }), window))?.code).toBe(
      'TRANSACTION_EXPIRED',
    );
    expect(refusal(() => checkWindow(tx({ preparationTime: new Date(T0 + DAY + 1) }), window))?.code).toBe(
      'TRANSACTION_NOT_YET_VALID',
    );
  });

  it('compares synchronizers by logical id: protocol 35 signs the physical id, either form may be configured', () => {
    const logical = 'global::1220aa';
    const physical = `${logical}::35-0`;
    const allowed = (ids: string[], named: string) =>
      refusal(() => checkWindow(tx({ synchronizerId: named }), { ...window, allowedSynchronizers: ids }));
    expect(allowed([logical], physical)).toBeUndefined();
    expect(allowed([physical], logical)).toBeUndefined();
    expect(allowed([`${logical}::35-1`], physical)).toBeUndefined(); // a later serial: the same synchronizer
    expect(allowed(['other::1220aa'], physical)?.code).toBe('SYNCHRONIZER_NOT_ALLOWED');
    expect(allowed(['global::1220bb::35-0'], physical)?.code).toBe('SYNCHRONIZER_NOT_ALLOWED');
  });

  it('never accepts a transaction whose deadline has passed, whatever its times', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -3 * DAY, max: 3 * DAY }),
        fc.option(fc.integer({ min: -DAY, max: DAY })),
        (p, m) => {
          const t = tx({
            preparationTime: new Date(T0 + p),
            ...(m === null ? {} : { maxRecordTime: new Date(T0 + m) }),
          });
          const r = refusal(() => checkWindow(t, window));
          const d = commitDeadline(
            { maxRecordTime: m === null ? undefined : T0 + m, preparedAt: T0 + p },
            DAY,
          );
          if (d && d.at <= T0) expect(r?.code).toBe('TRANSACTION_EXPIRED');
          if (!r) expect(checkWindow(t, window)).toBe(d?.at);
        },
      ),
    );
  });
});

describe('the request', () => {
  it('fingerprints the same request the same whatever its key order', () => {
    const a = requestFingerprint({ ...req, party: 'x', userId: 'u' });
    const b = requestFingerprint({ userId: 'u', party: 'x', ...req });
    expect(a).toBe(b);
    expect(requestFingerprint({ ...req, party: 'y', userId: 'u' })).not.toBe(a);
  });

  it('reads the dedup period as a lower bound, capped; a negative one is a 400', () => {
    expect(requestedDedupSeconds(undefined, 100)).toBeUndefined();
    expect(requestedDedupSeconds({ Empty: {} }, 100)).toBe(100);
    expect(requestedDedupSeconds({ DeduplicationDuration: { value: { seconds: 30, nanos: 5 } } }, 100)).toBe(
      31,
    );
    expect(requestedDedupSeconds({ DeduplicationDuration: { value: { seconds: 300, nanos: 0 } } }, 100)).toBe(
      100,
    );
    expect(
      refusal(() =>
        requestedDedupSeconds({ DeduplicationDuration: { value: { seconds: -1, nanos: 0 } } }, 100),
      ),
    ).toEqual({ status: 400, code: 'INVALID_DEDUPLICATION_PERIOD' });
  });

  it('names the holder of a command id only to a caller who may see it', () => {
    const holder = record({ party: 'alice::1220aa' });
    expect(commandIdInUse(admin, 'c', holder).message).toContain(holder.id);
    expect(commandIdInUse({ ...admin, party: 'bob::1220bb' }, 'c', holder).message).not.toContain(holder.id);
    expect(parseHash(` ${hex.toUpperCase()} `)).toBe(hex);
  });
});
