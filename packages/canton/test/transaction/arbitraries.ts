// fast-check generators of valid prepared transactions (build inputs) for differential and property tests.

import { type BuildInput, type BuildNode, damlValue as V } from '@quill/sandbox/build';
import fc from 'fast-check';
import type { Value } from '../../src/transaction/index.ts';

const hexBytes = (min: number, max: number) =>
  fc.uint8Array({ minLength: min, maxLength: max }).map((b) => Buffer.from(b).toString('hex'));

export const contractId = fc.tuple(hexBytes(32, 32), hexBytes(0, 4)).map(([h, s]) => `00${h}${s}`);

const ident = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,8}$/);
const dotted = fc.array(ident, { minLength: 1, maxLength: 3 }).map((xs) => xs.join('.'));
export const identifier = fc.record({
  packageId: hexBytes(32, 32),
  moduleName: dotted,
  entityName: dotted,
});
export const party = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}$/), hexBytes(4, 4))
  .map(([h, f]) => `${h}::1220${f}`);
const parties = fc.uniqueArray(party, { minLength: 1, maxLength: 4 });
const packageName = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);

/** Int64 values in the safe-integer range (the reference hasher goes through JS numbers). */
const safeInt = fc.bigInt({ min: BigInt(Number.MIN_SAFE_INTEGER), max: BigInt(Number.MAX_SAFE_INTEGER) });
const numeric = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: 10 }), fc.boolean())
  .map(([n, scale, neg]) => {
    const digits = n.toString().padStart(scale + 1, '0');
    const int = digits.slice(0, digits.length - scale);
    const text = `${int}.${digits.slice(digits.length - scale)}`;
    return neg && n !== 0n ? `-${text}` : text;
  });

export const value: fc.Arbitrary<Value> = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(V.unit()),
    fc.boolean().map(V.bool),
    safeInt.map(V.int64),
    numeric.map(V.numeric),
    fc.bigInt({ min: 0n, max: 253402300799999999n }).map(V.timestamp),
    fc.integer({ min: -719162, max: 2932896 }).map(V.date),
    party.map(V.party),
    fc.string({ maxLength: 12, unit: 'grapheme' }).map(V.text),
    contractId.map(V.contractId),
    fc.option(tie('value'), { nil: undefined }).map((v) => V.optional(v)),
    fc.array(tie('value'), { maxLength: 3 }).map(V.list),
    // Sorted, unique keys: the reference hashes TextMap entries in wire order, the participant sorted.
    fc
      .uniqueArray(fc.tuple(fc.stringMatching(/^[a-z]{0,6}$/), tie('value')), {
        maxLength: 3,
        selector: (e) => e[0],
      })
      .map((es) => V.textMap(Object.fromEntries(es.sort((a, b) => (a[0] < b[0] ? -1 : 1))))),
    fc.array(fc.tuple(tie('value'), tie('value')), { maxLength: 2 }).map(V.genMap),
    fc
      .tuple(
        fc.option(identifier, { nil: undefined }),
        fc.uniqueArray(fc.tuple(ident, tie('value')), { maxLength: 3, selector: (e) => e[0] }),
      )
      .map(([id, fs]) => V.record(Object.fromEntries(fs), id)),
    fc
      .tuple(ident, tie('value'), fc.option(identifier, { nil: undefined }))
      .map(([c, v, id]) => V.variant(c, v, id)),
    fc.tuple(ident, fc.option(identifier, { nil: undefined })).map(([c, id]) => V.enum(c, id)),
  ),
})).value;

const action = fc.record({
  contractId,
  packageName,
  templateId: identifier,
  signatories: parties,
  stakeholders: parties,
});

const leaf: fc.Arbitrary<BuildNode> = fc.oneof(
  fc.tuple(action, value).map(([a, argument]): BuildNode => ({ kind: 'create', ...a, argument })),
  fc
    .tuple(action, parties, fc.option(identifier, { nil: undefined }))
    .map(
      ([a, actingParties, interfaceId]): BuildNode => ({ kind: 'fetch', ...a, actingParties, interfaceId }),
    ),
);

export const node: fc.Arbitrary<BuildNode> = fc.letrec<{ node: BuildNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    leaf,
    fc
      .record({
        a: action,
        choice: ident,
        choiceArgument: value,
        consuming: fc.boolean(),
        actingParties: parties,
        interfaceId: fc.option(identifier, { nil: undefined }),
        choiceObservers: fc.uniqueArray(party, { maxLength: 2 }),
        result: fc.option(value, { nil: undefined }),
        children: fc.array(tie('node'), { maxLength: 3 }),
      })
      .map(({ a, ...e }): BuildNode => ({ kind: 'exercise', ...a, ...e })),
    fc
      .array(tie('node'), { minLength: 1, maxLength: 2 })
      .map((children): BuildNode => ({ kind: 'rollback', children })),
  ),
})).node;

const micros = fc.bigInt({ min: 0n, max: 253402300799999999n });

export const buildInput: fc.Arbitrary<BuildInput> = fc.record({
  roots: fc.array(node, { minLength: 1, maxLength: 3 }),
  seed: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  actAs: parties,
  commandId: fc.stringMatching(/^[A-Za-z0-9._:#/ -]{1,20}$/),
  synchronizerId: fc.tuple(ident, hexBytes(8, 8)).map(([a, b]) => `${a}::1220${b}`),
  transactionUuid: fc.uuid(),
  mediatorGroup: fc.integer({ min: 0, max: 1000 }),
  preparationTime: micros,
  inputContracts: fc.uniqueArray(
    fc.record({
      contract: fc.tuple(action, value).map(([a, argument]) => ({ ...a, argument })),
      createdAt: micros,
    }),
    { maxLength: 2, selector: (c) => c.contract.contractId },
  ),
  minLedgerEffectiveTime: fc.option(micros, { nil: undefined }),
  maxLedgerEffectiveTime: fc.option(micros, { nil: undefined }),
  maxRecordTime: fc.option(micros, { nil: undefined }),
});
