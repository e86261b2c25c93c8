/**
 * Property tests: random invalid inputs to each schema are refused with a path and a message.
 * Invalid inputs are made from valid ones by replacing one value anywhere in the tree with a value of the
 * wrong JSON type (Daml-LF argument positions are free-form and skipped). The refusal must carry an issue
 * whose path leads to the replaced value (a union reports at the union's own path, a prefix).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as L from '../../src/ledger/index.ts';
import { ledgerSpec } from '../support/openapi.ts';
import {
  ALICE,
  cantonErrors,
  execute,
  format,
  jsTransaction,
  PKG,
  prepareResponse,
  SYNC,
  updates,
  user,
  vettedPackagesResponse,
} from './fixtures.ts';

type Path = (string | number)[];
const FREE_FORM = new Set([
  'createArgument',
  'createArguments',
  'choiceArgument',
  'exerciseResult',
  'contractKey',
  'viewValue',
]);

function paths(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = prefix.length ? [prefix] : [];
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) out.push(...paths(v, [...prefix, i]));
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (!FREE_FORM.has(k)) out.push(...paths(v, [...prefix, k]));
    }
  }
  return out;
}

function wrongValues(current: unknown): unknown[] {
  if (typeof current === 'string') return [42, true, {}, []];
  if (typeof current === 'number') return ['x', 1.5, true, {}, 2 ** 60];
  if (typeof current === 'boolean') return ['true', 1, {}];
  if (Array.isArray(current)) return [42, 'x', {}];
  // A mixed array fits no typed field (strings, numbers, objects, homogeneous arrays alike).
  if (current === null) return [[{}, 1, 'x', true]];
  return [42, 'x', []];
}

function setAt(value: unknown, path: Path, replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = replacement;
  return copy;
}

function getAt(value: unknown, path: Path): unknown {
  let node = value as Record<string | number, unknown>;
  for (const key of path) node = node[key] as Record<string | number, unknown>;
  return node;
}

function isPrefix(prefix: readonly PropertyKey[], path: Path): boolean {
  return prefix.length <= path.length && prefix.every((k, i) => String(k) === String(path[i]));
}

function refusesMutations(name: string, schema: z.ZodType, valid: unknown): void {
  it(`${name} refuses a wrong-typed value anywhere, naming where`, () => {
    expect(schema.safeParse(valid).error?.issues ?? []).toEqual([]);
    const all = paths(valid);
    expect(all.length).toBeGreaterThan(0);
    fc.assert(
      fc.property(fc.constantFrom(...all), fc.nat(), (path, pick) => {
        const options = wrongValues(getAt(valid, path));
        const mutated = setAt(valid, path, options[pick % options.length]);
        const result = schema.safeParse(mutated);
        expect(result.success, `${name} accepted a wrong value at ${path.join('.')}`).toBe(false);
        const issues = result.error?.issues ?? [];
        expect(issues.length).toBeGreaterThan(0);
        expect(issues.every((i) => i.message.length > 0)).toBe(true);
        expect(
          issues.some((i) => isPrefix(i.path, path)),
          `no issue on the way to ${path.join('.')}: ${JSON.stringify(issues.map((i) => i.path))}`,
        ).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it(`${name} refuses values that are not objects at all`, () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.nat())),
        (v) => {
          const result = schema.safeParse(v);
          expect(result.success).toBe(false);
          expect(result.error?.issues[0]?.message).toBeTruthy();
        },
      ),
      { numRuns: 30 },
    );
  });
}

describe('responses', () => {
  const cases: Array<[string, z.ZodType, unknown]> = [
    ['JsGetTransactionResponse', L.JsGetTransactionResponse, { transaction: jsTransaction }],
    ['Update (ledger effects)', L.Update, updates.ledgerEffects],
    ['Update (reassignment)', L.Update, updates.reassignment],
    ['Update (topology)', L.Update, updates.topology],
    ['Update (checkpoint)', L.Update, updates.checkpoint],
    ['JsPrepareSubmissionResponse', L.JsPrepareSubmissionResponse, prepareResponse],
    ['ListVettedPackagesResponse', L.ListVettedPackagesResponse, vettedPackagesResponse],
    ['JsCantonError', L.JsCantonError, cantonErrors.duplicate],
    ['UpdateUserResponse', L.UpdateUserResponse, { user }],
  ];
  for (const [name, schema, valid] of cases) refusesMutations(name, schema, valid);

  const spec = ledgerSpec();
  const strings = (p: string) =>
    ['recordTime', 'effectiveAt', 'createdAt'].includes(p)
      ? '2025-01-01T00:00:00Z'
      : ['topologyTransactions', 'multiHash'].includes(p)
        ? 'CgQ='
        : undefined;
  for (const name of [
    'GenerateExternalPartyTopologyResponse',
    'GetLedgerApiVersionResponse',
    'ListUsersResponse',
  ]) {
    refusesMutations(
      `${name} (spec sample)`,
      (L as unknown as Record<string, z.ZodType>)[name]!,
      spec.sample(name, { mode: 'full', strings }),
    );
  }
});

describe('requests', () => {
  const cases: Array<[string, z.ZodType, unknown]> = [
    [
      'GetUpdatesRequest',
      L.GetUpdatesRequest,
      { beginExclusive: 1, endInclusive: 9, updateFormat: format, descendingOrder: true },
    ],
    [
      'GetTransactionByOffsetRequest',
      L.GetTransactionByOffsetRequest,
      { offset: 4, transactionFormat: format.includeTransactions },
    ],
    ['GetUpdateByOffsetRequest', L.GetUpdateByOffsetRequest, { offset: 4, updateFormat: format }],
    [
      'UpdateUserRequest',
      L.UpdateUserRequest,
      { user, updateMask: { paths: ['primary_party'], unknownFields: { fields: {} } } },
    ],
    [
      'JsExecuteSubmissionAndWaitForTransactionRequest',
      L.JsExecuteSubmissionAndWaitForTransactionRequest,
      execute,
    ],
    [
      'JsPrepareSubmissionRequest',
      L.JsPrepareSubmissionRequest,
      {
        commandId: 'c',
        commands: [{ CreateCommand: { templateId: `${PKG}:M:T`, createArguments: { owner: ALICE } } }],
        actAs: [ALICE],
        synchronizerId: SYNC,
        packageIdSelectionPreference: [PKG],
        hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3',
      },
    ],
    [
      'ListVettedPackagesRequest',
      L.ListVettedPackagesRequest,
      { packageMetadataFilter: { packageNamePrefixes: ['splice'] }, pageSize: 10, pageToken: '' },
    ],
    [
      'GenerateExternalPartyTopologyRequest',
      L.GenerateExternalPartyTopologyRequest,
      {
        synchronizer: SYNC,
        partyHint: 'alice',
        publicKey: {
          format: 'CRYPTO_KEY_FORMAT_RAW',
          keyData: 'CgQ=',
          keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
        },
      },
    ],
  ];
  for (const [name, schema, valid] of cases) refusesMutations(name, schema, valid);
});

describe('scalar encodings', () => {
  it('Int64Input takes integers and numeric strings, nothing else', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(L.Int64Input.parse(n)).toBe(n);
        expect(L.Int64Input.parse(String(n))).toBe(n);
      }),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double().filter((d) => !Number.isInteger(d)),
          fc.string().filter((s) => !/^-?\d{1,16}$/.test(s)),
          fc.bigInt({ min: 2n ** 53n }).map((b) => Number(b)),
        ),
        (v) => {
          const r = L.Int64Input.safeParse(v);
          expect(r.success).toBe(false);
          expect(r.error?.issues[0]?.message).toBeTruthy();
        },
      ),
    );
  });

  it('Base64 accepts what Buffer encodes and refuses broken padding or alphabet', () => {
    fc.assert(
      fc.property(fc.uint8Array(), (bytes) => {
        L.Base64.parse(Buffer.from(bytes).toString('base64'));
      }),
    );
    for (const bad of ['abc', 'ab=c', 'a===', '@@@@', 'YQ', 'YWJj-_=='])
      expect(L.Base64.safeParse(bad).success).toBe(false);
  });

  it('Timestamp accepts ISO instants and refuses other dates', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }), (d) => {
        L.Timestamp.parse(d.toISOString());
      }),
    );
    for (const bad of ['2025-01-01', '2025-01-01 10:00:00Z', 'yesterday', '1735689600']) {
      expect(L.Timestamp.safeParse(bad).success).toBe(false);
    }
  });
});
