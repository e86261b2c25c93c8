// Bad input never crashes the sandbox: arbitrary JSON bodies on every POST/PATCH endpoint get a 2xx or a
// 4xx answer (JsCantonError JSON, or tapir's 400 text/plain), never a 5xx or a dropped connection.
import { fc } from '@fast-check/vitest';
import { ledgerSpec } from '@quill/canton/testing/openapi';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { call, type Sandbox, sandboxWithAdmin } from './helpers.ts';

let sb: Sandbox;
let admin: string;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin({ options: { listWaitMs: 0 } }));
});
afterAll(async () => {
  await sb?.close();
});

const ENDPOINTS: [string, string][] = [
  ['POST', '/v2/package-vetting/list'],
  ['POST', '/v2/updates/flats'],
  ['POST', '/v2/updates'],
  ['POST', '/v2/updates/trees'],
  ['POST', '/v2/updates/transaction-by-offset'],
  ['POST', '/v2/updates/transaction-by-id'],
  ['POST', '/v2/updates/update-by-offset'],
  ['POST', '/v2/updates/update-by-id'],
  ['POST', '/v2/events/events-by-contract-id'],
  ['PATCH', '/v2/users/participant_admin'],
  ['POST', '/v2/users'],
  ['POST', '/v2/users/participant_admin/rights'],
  ['POST', '/v2/parties/external/generate-topology'],
  ['POST', '/v2/parties/external/allocate'],
  ['POST', '/v2/interactive-submission/prepare'],
  ['POST', '/v2/interactive-submission/executeAndWaitForTransaction'],
  ['POST', '/admin/unassign'],
  ['POST', '/admin/assign'],
  ['POST', '/admin/hosting'],
];

/** Bodies close to valid ones (the interesting part of the input space) and arbitrary JSON. */
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      beginExclusive: fc.oneof(fc.integer(), fc.string()),
      endInclusive: fc.integer({ min: -5, max: 50 }),
      offset: fc.integer({ min: -5, max: 50 }),
      updateId: fc.string(),
      pageSize: fc.integer({ min: -5, max: 500 }),
      pageToken: fc.string(),
      descendingOrder: fc.boolean(),
      verbose: fc.boolean(),
      filter: fc.constant({ filtersByParty: { x: {} } }),
      updateFormat: fc.jsonValue({ maxDepth: 2 }),
      requestingParties: fc.array(fc.string(), { maxLength: 2 }),
      user: fc.record({ id: fc.string(), primaryParty: fc.string() }),
      updateMask: fc.record({
        paths: fc.array(fc.constantFrom('primary_party', 'metadata', 'x', ''), { maxLength: 3 }),
      }),
      preparedTransaction: fc.base64String(),
      commands: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 2 }),
      actAs: fc.array(fc.string(), { maxLength: 2 }),
      commandId: fc.string(),
      synchronizerId: fc.string(),
      packageIdSelectionPreference: fc.constant([]),
      partySignatures: fc.jsonValue({ maxDepth: 2 }),
      submissionId: fc.string(),
      hashingSchemeVersion: fc.constantFrom('HASHING_SCHEME_VERSION_V2', 'HASHING_SCHEME_VERSION_V3', 'X'),
      deduplicationPeriod: fc.constantFrom({ Empty: {} }, { DeduplicationOffset: { value: -1 } }, {}),
      contractId: fc.string(),
      target: fc.string(),
      reassignmentId: fc.string(),
      partyId: fc.string(),
      permission: fc.constantFrom('SUBMISSION', 'OBSERVATION', null, 'X'),
      minLedgerTime: fc.jsonValue({ maxDepth: 3 }),
    },
    { requiredKeys: [] },
  ),
);

test('arbitrary bodies get 2xx/4xx answers of the documented kinds', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...ENDPOINTS), body, async ([method, path], b) => {
      const a = await call(sb.url, method, path, b, admin);
      expect(a.status, `${method} ${path} ${JSON.stringify(b)} → ${a.text}`).toBeLessThan(500);
      if (a.status >= 400 && a.contentType.includes('json'))
        ledgerSpec().expectValidComponent('JsCantonError', a.json);
      if (a.status >= 400 && !a.contentType.includes('json')) expect(a.status).toBe(400);
    }),
    { numRuns: 300 },
  );
}, 60_000);

test('arbitrary tree lookups (path offset or id, repeated parties) get 2xx/4xx answers', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('transaction-tree-by-offset', 'transaction-tree-by-id'),
      fc.oneof(fc.string(), fc.integer({ min: -3, max: 30 }).map(String)),
      fc.array(fc.string(), { maxLength: 3 }),
      async (kind, key, parties) => {
        const qs = parties.map((p) => `parties=${encodeURIComponent(p)}`).join('&');
        const a = await call(
          sb.url,
          'GET',
          `/v2/updates/${kind}/${encodeURIComponent(key)}?${qs}`,
          undefined,
          admin,
        );
        expect(a.status, `${kind} ${key} ${qs} → ${a.text}`).toBeLessThan(500);
        if (a.status >= 400 && a.contentType.includes('json'))
          ledgerSpec().expectValidComponent('JsCantonError', a.json);
      },
    ),
    { numRuns: 200 },
  );
}, 60_000);
