// Properties of the codec and of partyToParticipantProblem over random valid and broken values.
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  decodeTopologyTransaction,
  encodeTopologyTransaction,
  hex,
  type KeySpec,
  type NamespaceDelegation,
  type PartyToParticipant,
  partyToParticipantProblem,
  type SigningKeyUsage,
  TopologyError,
  type TopologyKey,
  type TopologyTransaction,
} from '../../src/topology/index.ts';

const MAX = 0x7fffffff;
const ED_PREFIX = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00];
const SPECS: KeySpec[] = [
  'SIGNING_KEY_SPEC_EC_CURVE25519',
  'SIGNING_KEY_SPEC_EC_P256',
  'SIGNING_KEY_SPEC_EC_P384',
  'SIGNING_KEY_SPEC_EC_SECP256K1',
];
const USAGES: SigningKeyUsage[] = ['namespace', 'sequencer-authentication', 'protocol', 'proof-of-ownership'];
const CODES = [1, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 17, 18, 19, 20];

/** A key whose SPKI has the shape keyFingerprint accepts: the Ed25519 SPKI, or a short-form DER SEQUENCE. */
const key: fc.Arbitrary<TopologyKey> = fc
  .record({
    keySpec: fc.constantFrom(...SPECS),
    body: fc.uint8Array({ minLength: 32, maxLength: 100 }),
    usage: fc.uniqueArray(fc.constantFrom(...USAGES), { minLength: 1 }),
  })
  .map(({ keySpec, body, usage }) => ({
    keySpec,
    usage,
    spki:
      keySpec === 'SIGNING_KEY_SPEC_EC_CURVE25519'
        ? new Uint8Array([...ED_PREFIX, ...body.subarray(0, 32)])
        : new Uint8Array([0x30, body.length, ...body]),
  }));

/** Any non-empty well-formed string (the codec does not judge party or uid shape). */
const text = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }),
  fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }),
);
const permission = fc.constantFrom('submission', 'confirmation', 'observation' as const);

const anyP2p: fc.Arbitrary<PartyToParticipant> = fc.record(
  {
    kind: fc.constant('party-to-participant' as const),
    party: text,
    threshold: fc.integer({ min: 1, max: MAX }),
    participants: fc.array(
      fc.record(
        { uid: text, permission, onboarding: fc.constant(true) },
        { requiredKeys: ['uid', 'permission'] },
      ),
      { maxLength: 5 },
    ),
    signingKeys: fc.record({
      keys: fc.array(key, { minLength: 1, maxLength: 4 }),
      threshold: fc.integer({ min: 1, max: MAX }),
    }),
  },
  { requiredKeys: ['kind', 'party', 'threshold', 'participants'] },
);

const anyNsd: fc.Arbitrary<NamespaceDelegation> = fc.record({
  kind: fc.constant('namespace-delegation' as const),
  namespace: text,
  targetKey: key,
  restriction: fc.oneof(
    fc.constant({ kind: 'all' as const }),
    fc.constant({ kind: 'all-but-namespace-delegations' as const }),
    fc
      .uniqueArray(fc.constantFrom(...CODES), { minLength: 1 })
      .map((mappings) => ({ kind: 'specific' as const, mappings })),
  ),
});

const anyTx: fc.Arbitrary<TopologyTransaction> = fc.record({
  operation: fc.constantFrom('add-replace', 'remove' as const),
  serial: fc.integer({ min: 1, max: MAX }),
  mapping: fc.oneof(anyP2p, anyNsd),
});

/** Decodes, or returns the TopologyError; anything else thrown is a crash and fails the property. */
function attempt(bytes: Uint8Array): TopologyTransaction | TopologyError {
  try {
    return decodeTopologyTransaction(bytes);
  } catch (err) {
    if (err instanceof TopologyError && err.code === 'MALFORMED' && !err.message.includes('\n')) return err;
    throw err;
  }
}

describe('codec properties', () => {
  fcTest.prop([anyTx], { numRuns: 500 })('encode → decode round-trips, and re-encoding is stable', (tx) => {
    const bytes = encodeTopologyTransaction(tx);
    const back = decodeTopologyTransaction(bytes);
    expect(back).toEqual(tx);
    expect(hex(encodeTopologyTransaction(back))).toBe(hex(bytes));
  });

  fcTest.prop([fc.uint8Array({ maxLength: 300 })], { numRuns: 2000 })(
    'arbitrary bytes decode to a transaction or throw TopologyError(MALFORMED), nothing else',
    (bytes) => {
      attempt(bytes);
    },
  );

  fcTest.prop(
    [anyTx, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 })],
    {
      numRuns: 3000,
    },
  )(
    'mutated valid bytes decode or throw TopologyError, and what decodes re-encodes consistently',
    (tx, edits) => {
      const bytes = encodeTopologyTransaction(tx);
      for (const [at, value] of edits) bytes[at % bytes.length] = value;
      const out = attempt(bytes);
      // Whatever decodes is a value the encoder accepts, and it reads back the same.
      if (!(out instanceof TopologyError))
        expect(decodeTopologyTransaction(encodeTopologyTransaction(out))).toEqual(out);
    },
  );

  fcTest.prop([anyTx], { numRuns: 300 })('every truncation of valid bytes is refused', (tx) => {
    // Stronger than "throws or decodes to something else": the version field comes last and data is
    // length-prefixed, so a cut always either breaks a length or loses `version = 30`.
    const bytes = encodeTopologyTransaction(tx);
    for (let cut = 0; cut < bytes.length; cut++) {
      expect(attempt(bytes.subarray(0, cut))).toBeInstanceOf(TopologyError);
    }
  });
});

// ------------------------------------------------------------------------------- partyToParticipantProblem

const hex64 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(hex);
const hint = fc
  .stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_:-]{0,20}$/)
  .filter((s) => !s.includes('::') && !s.endsWith(':'));
const uid = fc.tuple(hint, hex64).map(([h, n]) => `${h}::1220${n}`);

/** A mapping the participant accepts: unique hosts, reachable thresholds, 1..20 unique keys. */
const validP2p: fc.Arbitrary<PartyToParticipant> = fc
  .record({
    party: uid,
    confirmers: fc.uniqueArray(uid, { minLength: 1, maxLength: 4 }),
    observers: fc.uniqueArray(uid, { maxLength: 3 }),
    submit: fc.boolean(),
    t: fc.nat(),
    keys: fc.option(fc.uniqueArray(key, { minLength: 1, maxLength: 20, selector: (k) => hex(k.spki) }), {
      nil: undefined,
    }),
    kt: fc.nat(),
  })
  .filter(({ confirmers, observers }) => confirmers.every((c) => !observers.includes(c)))
  .map(({ party, confirmers, observers, submit, t, keys, kt }) => ({
    kind: 'party-to-participant' as const,
    party,
    threshold: 1 + (t % confirmers.length),
    participants: [
      ...confirmers.map((u, i) => ({
        uid: u,
        permission: submit && i === 0 ? ('submission' as const) : ('confirmation' as const),
      })),
      ...observers.map((u) => ({ uid: u, permission: 'observation' as const })),
    ],
    ...(keys ? { signingKeys: { keys, threshold: 1 + (kt % keys.length) } } : {}),
  }));

type Breakage = (m: PartyToParticipant, n: number) => PartyToParticipant | undefined;
const confirmingCount = (m: PartyToParticipant) =>
  m.participants.filter((p) => p.permission !== 'observation').length;
const breakages: Record<string, Breakage> = {
  'threshold above the confirming hosts': (m) => ({ ...m, threshold: confirmingCount(m) + 1 }),
  'threshold 0': (m) => ({ ...m, threshold: 0 }),
  'a host listed twice': (m, n) => {
    const p = m.participants[n % m.participants.length]!;
    return { ...m, participants: [...m.participants, { ...p, permission: 'observation' }] };
  },
  'a party without namespace': (m) => ({ ...m, party: m.party.split('::')[0]! }),
  'a party with uppercase hex': (m) => ({
    ...m,
    party: m.party.replace(/::1220(.)/, (_s, c: string) => `::1220${c === 'a' ? 'B' : 'A'}`),
  }),
  'a party namespace without 1220': (m) => ({ ...m, party: m.party.replace('::1220', '::1221') }),
  'a party with an extra ::': (m) => ({ ...m, party: `x::${m.party}` }),
  'a host uid with a short namespace': (m) => ({
    ...m,
    participants: m.participants.map((p, i) => (i === 0 ? { ...p, uid: p.uid.slice(0, -1) } : p)),
  }),
  'a key listed twice': (m, n) =>
    m.signingKeys && m.signingKeys.keys.length < 20
      ? {
          ...m,
          signingKeys: {
            ...m.signingKeys,
            keys: [
              ...m.signingKeys.keys,
              { ...m.signingKeys.keys[n % m.signingKeys.keys.length]!, usage: ['protocol'] },
            ],
          },
        }
      : undefined,
  '21 keys': (m) => {
    if (!m.signingKeys) return undefined;
    const keys = [...m.signingKeys.keys];
    for (let i = 0; keys.length < 21; i++)
      keys.push({
        spki: new Uint8Array([...ED_PREFIX, ...new Array(31).fill(0xee), i]),
        keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
        usage: ['protocol'],
      });
    return { ...m, signingKeys: { keys, threshold: 1 } };
  },
  'key threshold above the keys': (m) =>
    m.signingKeys
      ? { ...m, signingKeys: { ...m.signingKeys, threshold: m.signingKeys.keys.length + 1 } }
      : undefined,
  'key threshold 0': (m) =>
    m.signingKeys ? { ...m, signingKeys: { ...m.signingKeys, threshold: 0 } } : undefined,
  'no keys': (m) => ({ ...m, signingKeys: { keys: [], threshold: 1 } }),
  'an Ed25519 key that is not its SPKI': (m) =>
    m.signingKeys
      ? {
          ...m,
          signingKeys: {
            ...m.signingKeys,
            keys: [
              { spki: new Uint8Array(32), keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519', usage: ['protocol'] },
            ],
          },
        }
      : undefined,
  'only observers': (m) => ({
    ...m,
    participants: m.participants.map((p) => ({ ...p, permission: 'observation' })),
  }),
};

describe('partyToParticipantProblem', () => {
  fcTest.prop([validP2p], { numRuns: 500 })(
    'accepts mappings that follow the rules (and they encode)',
    (m) => {
      expect(partyToParticipantProblem(m)).toBeUndefined();
      const tx: TopologyTransaction = { operation: 'add-replace', serial: 1, mapping: m };
      expect(decodeTopologyTransaction(encodeTopologyTransaction(tx))).toEqual(tx);
    },
  );

  fcTest.prop([validP2p, fc.constantFrom(...Object.keys(breakages)), fc.nat()], { numRuns: 1500 })(
    'refuses each broken rule with a one-line reason',
    (m, name, n) => {
      const broken = breakages[name]!(m, n);
      fc.pre(broken !== undefined);
      const problem = partyToParticipantProblem(broken!);
      expect(problem, name).toBeTypeOf('string');
      expect(problem).not.toContain('\n');
    },
  );

  fcTest.prop([validP2p], { numRuns: 200 })('counts submission hosts as confirming, observers not', (m) => {
    expect(partyToParticipantProblem({ ...m, threshold: confirmingCount(m) })).toBeUndefined();
  });
});
