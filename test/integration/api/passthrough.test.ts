// The fields a submission passes through to the ledger's execute request (deduplicationPeriod, minLedgerTime,
// transactionFormat) are the ledger contract's own schemas: what the ledger would refuse is a 400 at accept,
// naming the bad field, and nothing is signed. Regression for issue #18's live bug: a transactionFormat the
// ledger schema refuses used to be accepted, then retried as "ambiguous" until its commit deadline.
import { fc, test as fcTest } from '@fast-check/vitest';
import { JsExecuteSubmissionAndWaitForTransactionRequest } from '@quill/canton/ledger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubmissionBody } from '../../../src/api/schemas.ts';
import { apiHarness, prepared } from '../../support/api-harness.ts';

let h: Awaited<ReturnType<typeof apiHarness>>;
let alice: { id: string; fingerprint: string };
let submitToken: string;

beforeAll(async () => {
  h = await apiHarness();
  alice = await h.party('alice');
  submitToken = await h.token('submit', alice.id);
});
afterAll(() => h.close());

const VALID_FORMAT = {
  eventFormat: { filtersByParty: { 'alice::1220ab': {} }, verbose: false },
  transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
};

const refused: [string, Record<string, unknown>, RegExp][] = [
  [
    'transactionFormat: filtersForAnyParty.cumulative not a list (the live bug)',
    { transactionFormat: { ...VALID_FORMAT, eventFormat: { filtersForAnyParty: { cumulative: 'x' } } } },
    /^transactionFormat\.eventFormat\.filtersForAnyParty\.cumulative: /,
  ],
  [
    'transactionFormat: unknown shape',
    { transactionFormat: { ...VALID_FORMAT, transactionShape: 'TRANSACTION_SHAPE_EVERYTHING' } },
    /^transactionFormat\.transactionShape: /,
  ],
  [
    'transactionFormat: a template filter without a template id',
    {
      transactionFormat: {
        ...VALID_FORMAT,
        eventFormat: {
          filtersByParty: { p: { cumulative: [{ identifierFilter: { TemplateFilter: {} } }] } },
        },
      },
    },
    /^transactionFormat\.eventFormat\.filtersByParty\.p\.cumulative\.0\.identifierFilter/,
  ],
  [
    'transactionFormat: no filter at all (the participant refuses it after signing)',
    { transactionFormat: { ...VALID_FORMAT, eventFormat: { filtersByParty: {} } } },
    /^transactionFormat: filtersByParty and filtersForAnyParty cannot be empty simultaneously/,
  ],
  [
    'transactionFormat: TRANSACTION_SHAPE_UNSPECIFIED',
    { transactionFormat: { ...VALID_FORMAT, transactionShape: 'TRANSACTION_SHAPE_UNSPECIFIED' } },
    /^transactionFormat: transaction_shape is required/,
  ],
  [
    'minLedgerTime: not a timestamp',
    { minLedgerTime: { time: { MinLedgerTimeAbs: { value: 'yesterday' } } } },
    /^minLedgerTime\.time/,
  ],
  [
    'minLedgerTime: a duration in words',
    { minLedgerTime: { time: { MinLedgerTimeRel: { value: '30s' } } } },
    /^minLedgerTime\.time/,
  ],
  [
    'deduplicationPeriod: seconds not an integer',
    { deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 'ten' } } } },
    /^deduplicationPeriod/,
  ],
  [
    'deduplicationPeriod: two variants at once',
    { deduplicationPeriod: { Empty: {}, DeduplicationDuration: { value: { seconds: 1 } } } },
    /^deduplicationPeriod/,
  ],
];

describe('pass-through fields the ledger would refuse are refused at accept', () => {
  for (const [name, fields, path] of refused) {
    it(name, async () => {
      const res = await h.call('POST', '/wallet/v1/submissions', {
        body: { ...prepared(alice.id).body, ...fields },
        token: submitToken,
      });
      expect(res.status).toBe(400);
      expect(res.json.error?.code).toBe('INVALID_REQUEST');
      expect(res.json.error?.message).toMatch(path);
      expect(await h.wallet.audit.signatures()).toEqual([]);
    });
  }

  it('the same fields in their valid forms are accepted, normalised as the ledger reads them', async () => {
    const res = await h.call('POST', '/wallet/v1/submissions', {
      body: {
        ...prepared(alice.id).body,
        transactionFormat: VALID_FORMAT,
        minLedgerTime: { time: { MinLedgerTimeRel: { value: { seconds: '5' } } } },
        deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 600, nanos: 0 } } },
      },
      token: submitToken,
    });
    expect(res.status).toBe(202);
  });
});

/** Values near a valid one: each leaf may be replaced by anything. */
function around(valid: unknown): fc.Arbitrary<unknown> {
  if (valid !== null && typeof valid === 'object') {
    const entries = Object.entries(valid as Record<string, unknown>);
    return fc.oneof(
      fc.anything(),
      fc.record(Object.fromEntries(entries.map(([k, v]) => [k, around(v)])), { requiredKeys: [] }),
    );
  }
  return fc.oneof(fc.constant(valid), fc.anything());
}

const FIELDS = {
  transactionFormat: {
    eventFormat: {
      filtersByParty: { p: { cumulative: [{ identifierFilter: { WildcardFilter: { value: {} } } }] } },
      filtersForAnyParty: {
        cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: '#a:B:C' } } } }],
      },
      verbose: true,
    },
    transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
  },
  minLedgerTime: { time: { MinLedgerTimeAbs: { value: '2030-01-01T00:00:00Z' } } },
  deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 60, nanos: 0 } } },
} as const;

const EXECUTE = {
  preparedTransaction: 'CgRhYmNk',
  partySignatures: { signatures: [] },
  deduplicationPeriod: { Empty: {} },
  submissionId: 's',
  hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
};

describe('whatever the API accepts in a pass-through field, the ledger request schema accepts', () => {
  for (const [field, valid] of Object.entries(FIELDS)) {
    fcTest.prop([around(valid)], { numRuns: 300 })(field, (value) => {
      const api = SubmissionBody.shape[field as keyof typeof FIELDS].safeParse(value);
      if (!api.success || api.data === undefined) return; // refused, or absent: nothing is sent
      const ledger = JsExecuteSubmissionAndWaitForTransactionRequest.safeParse({
        ...EXECUTE,
        [field]: api.data,
      });
      expect(ledger.error?.issues ?? []).toEqual([]);
    });
  }
});
