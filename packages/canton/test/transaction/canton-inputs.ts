// The inputs of Canton's hashing unit tests (BaseNodeHashTest / HashUtilsTest / ValueHashTest), rebuilt
// from test/fixtures/vectors/README-described values, as protobuf-ts messages.
import { readFileSync } from 'node:fs';
import { damlValue as V } from '@quill/sandbox/build';
import type {
  Create,
  Exercise,
  Fetch,
  GlobalKeyWithMaintainers,
  Metadata,
  Node,
  QueryByKey,
  Value,
} from '../../src/transaction/types.ts';

export interface Vector {
  name: string;
  hashing_scheme: string;
  source: { branch: string };
  expected_sha256: string;
  top_level_encoding_hex: string;
}

export const vectors: Vector[] = JSON.parse(
  readFileSync(new URL('../fixtures/vectors/canton-hashing-test-vectors.json', import.meta.url), 'utf8'),
);

export const hex = (s: string) => new Uint8Array(Buffer.from(s, 'hex'));
export const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export const cid1 = '0007e7b5534931dfca8e1b485c105bae4e10808bd13ddc8e897f258015f9d921c5';
export const cid2 = '0059b59ad7a6b6066e77b91ced54b8282f0e24e7089944685cb8f22f32fcbc4e1b';
export const seed0 = hex('926bbb6f341bc0092ae65d06c6e284024907148cc29543ef6bff0930f5d52c19');
export const seed4 = hex('a867edafa1277f46f879ab92c373a15c2d75c5d86fec741705cee1eb01ef8c9e');
const keyHash = hex('4d1741d27564ab1f1e74873034760583a1a71edaa90dbad6be3a78c0bf3eec7c');
const tpl = { packageId: 'package', moduleName: 'module', entityName: 'name' };
const def = 'package:module:name';

/** The 16 values of ValueHashTest, by vector name. */
export const values: Record<string, Value> = {
  'value: encode unit value': V.unit(),
  'value: encode true value': V.bool(true),
  'value: encode false value': V.bool(false),
  'value: encode text value': V.text('hello world!'),
  'value: encode contract id value': V.contractId(cid2),
  'value: encode enum value': V.enum('ENUM', def),
  'value: encode int64 value': V.int64(10n),
  'value: encode variant value': V.variant('ENUM', V.bool(true), def),
  'value: encode list value': V.list([V.text('five'), V.int64(5n), V.bool(true)]),
  // Given out of order on purpose: the participant hashes TextMap entries sorted by key.
  'value: encode text map value': V.textMap({ foo: V.numeric('31380.0'), bar: V.text('1284') }),
  'value: encode gen map value': V.genMap([
    [V.int64(5n), V.text('five')],
    [V.int64(10n), V.text('ten')],
  ]),
  'value: encode optional empty value': V.optional(),
  'value: encode optional defined value': V.optional(V.text('hello')),
  'value: encode timestamp value': V.timestamp(1729788226000000n),
  'value: encode date value': V.date(20020),
  'value: encode record value': V.record({ field1: V.bool(true), field2: V.text('hello') }, def),
};

export type SchemeNo = 2 | 3;
const lf = (s: SchemeNo) => (s === 2 ? '2.1' : '2');

function key(): GlobalKeyWithMaintainers {
  return {
    key: {
      templateId: { packageId: 'package', moduleName: 'module_key', entityName: 'name' },
      packageName: 'package_name_key',
      key: V.text('hello'),
      hash: keyHash,
    },
    maintainers: ['david'],
  };
}

export function createNode(s: SchemeNo): Create {
  return {
    lfVersion: lf(s),
    contractId: cid1,
    packageName: 'package-name-0',
    templateId: tpl,
    argument: V.text('hello'),
    signatories: ['alice', 'bob'],
    stakeholders: ['alice', 'charlie'],
    key: s === 3 ? key() : undefined,
  };
}

export function fetchNode(s: SchemeNo): Fetch {
  return {
    lfVersion: lf(s),
    contractId: cid1,
    packageName: 'package-name-0',
    templateId: tpl,
    signatories: ['alice'],
    stakeholders: ['charlie'],
    actingParties: ['alice', 'bob'],
    interfaceId: undefined,
    key: s === 3 ? key() : undefined,
    byKey: s === 3,
  };
}

export function exerciseNode(s: SchemeNo): Exercise {
  return {
    lfVersion: lf(s),
    contractId: cid1,
    packageName: 'package-name-0',
    templateId: tpl,
    signatories: ['alice'],
    stakeholders: ['charlie'],
    actingParties: ['alice', 'bob'],
    interfaceId: { packageId: 'package', moduleName: 'interface_module', entityName: 'interface_name' },
    choiceId: 'choice',
    chosenValue: V.int64(31380n),
    consuming: true,
    children: ['0', '2'],
    exerciseResult: V.text('result'),
    choiceObservers: ['david'],
    key: s === 3 ? key() : undefined,
    byKey: s === 3,
  };
}

export function queryNode(): QueryByKey {
  return {
    lfVersion: '2',
    packageName: 'package-name-0',
    templateId: tpl,
    exhaustive: true,
    key: key(),
    result: [cid1],
  };
}

/** Nodes 0 (create), 2 (fetch), 4 (exercise 0,2), 5 (rollback 2,4) as in BaseNodeHashTest. */
export function cantonNodes(s: SchemeNo): Record<string, Node> {
  return {
    '0': { nodeType: { oneofKind: 'create', create: createNode(s) } },
    '2': { nodeType: { oneofKind: 'fetch', fetch: fetchNode(s) } },
    '4': { nodeType: { oneofKind: 'exercise', exercise: exerciseNode(s) } },
    '5': { nodeType: { oneofKind: 'rollback', rollback: { children: ['2', '4'] } } },
    '6': { nodeType: { oneofKind: 'queryByKey', queryByKey: queryNode() } },
  };
}

function inputContract(s: SchemeNo, cid: string, createdAt: bigint, party: string) {
  return {
    contract: {
      oneofKind: 'v1' as const,
      v1: {
        lfVersion: lf(s),
        contractId: cid,
        packageName: 'PkgName',
        templateId: { packageId: '-dummyPkg-', moduleName: 'DummyModule', entityName: 'dummyName' },
        argument: V.contractId('0097a092402108f5593bac7fb3c909cd316910197dd98d603042a45ab85c81e0fd'),
        signatories: [party],
        stakeholders: [party],
        key: undefined,
      },
    },
    createdAt,
    eventBlob: new Uint8Array(0),
  };
}

/** HashUtilsTest metadata; `synchronizerId` is "synchronizerId" in the 3.4 test. */
export function cantonMetadata(s: SchemeNo, synchronizerId = 'synchronizer::id'): Metadata {
  return {
    submitterInfo: { actAs: ['alice', 'bob'], commandId: 'command-id' },
    synchronizerId,
    mediatorGroup: 0,
    transactionUuid: '4c6471d3-4e09-49dd-addf-6cd90e19c583',
    preparationTime: 0n,
    // Out of order on purpose: input contracts are hashed ordered by contract id.
    inputContracts: [
      inputContract(s, cid2, 1728000000000n, 'bob'),
      inputContract(s, cid1, 864000000000n, 'alice'),
    ],
    minLedgerEffectiveTime: 0xaaaan,
    maxLedgerEffectiveTime: 0xbbbbn,
    maxRecordTime: 2592000000000n,
    globalKeyMapping: [],
  };
}
