/**
 * Conformance, response side: instances generated from the spec's own schemas (minimal = required fields only,
 * full = every field, each oneOf branch in turn) parse with our zod schema of the same name, and the spec
 * validator itself accepts them (so the generator can't drift into testing nothing).
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as ledger from '../../src/ledger/index.ts';
import { ledgerSpec, specStrings } from '../support/openapi.ts';

/** Every response component our client parses (and what those reference). */
const RESPONSES = [
  'ListVettedPackagesResponse',
  'JsGetUpdatesResponse',
  'JsGetUpdateResponse',
  'JsGetTransactionResponse',
  'UpdateUserResponse',
  'JsExecuteSubmissionAndWaitForTransactionResponse',
  'ExecuteSubmissionAndWaitResponse',
  'ExecuteSubmissionResponse',
  'JsPrepareSubmissionResponse',
  'GenerateExternalPartyTopologyResponse',
  'AllocateExternalPartyResponse',
  'GetLedgerEndResponse',
  'GetLatestPrunedOffsetsResponse',
  'GetLedgerApiVersionResponse',
  'GetUserResponse',
  'CreateUserResponse',
  'ListUsersResponse',
  'GrantUserRightsResponse',
  'RevokeUserRightsResponse',
  'ListUserRightsResponse',
  'GetConnectedSynchronizersResponse',
  'ListKnownPartiesResponse',
  'GetPartiesResponse',
  'AllocatePartyResponse',
  'GetParticipantIdResponse',
  'JsGetEventsByContractIdResponse',
  'JsCantonError',
  'Update',
  'Event',
  'JsReassignmentEvent',
  'TopologyEventEvent',
  'Kind',
  'JsTransaction',
  'JsReassignment',
  'JsTopologyTransaction',
] as const;

const schemas = ledger as unknown as Record<string, z.ZodType>;

describe('spec-generated responses parse with our schemas', () => {
  const spec = ledgerSpec();
  for (const name of RESPONSES) {
    it(name, () => {
      const schema = schemas[name];
      expect(schema, `src/ledger exports ${name}`).toBeDefined();
      for (const mode of ['minimal', 'full'] as const) {
        for (let variant = 0; variant < 8; variant++) {
          const value = spec.sample(name, { mode, variant, strings: specStrings });
          spec.expectValidComponent(name, value);
          const parsed = schema!.safeParse(value);
          expect(parsed.error?.issues ?? [], `${name} ${mode} variant ${variant}`).toEqual([]);
        }
      }
    });
  }

  it('exports a schema for every component it names the same as the spec', () => {
    const names = new Set(spec.componentNames());
    const ours = Object.keys(ledger).filter(
      (k) => /^[A-Z]/.test(k) && typeof schemas[k]?.safeParse === 'function',
    );
    const unknown = ours.filter((k) => !names.has(k));
    // Our own additions that have no spec component (documented in the schema files).
    expect(unknown.sort()).toEqual(
      [
        'Base64',
        'CompletionStreamResponseList',
        'ConnectedSynchronizersQuery',
        'DeleteUserResponse',
        'ListUsersQuery',
        'Int32',
        'Int32Input',
        'Int64',
        'Int64Input',
        'JsGetUpdateTreesResponseList',
        'JsGetUpdatesResponseList',
        'ListKnownPartiesQuery',
        'LfValue',
        'StreamQuery',
        'TreeLookupQuery',
        'Timestamp',
        'CryptoKeyFormat',
        'HashingSchemeVersion',
        'ParticipantPermission',
        'SignatureFormat',
        'SigningAlgorithmSpec',
        'SigningKeySpec',
        'TransactionShape',
      ].sort(),
    );
  });
});
