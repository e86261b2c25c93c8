// The topology Quill builds for a governed party, read back by the sandbox's own protobuf codec and hashed by its
// own hasher (two implementations written apart): every mapping, key, host and threshold as meant, and the same
// transaction hash and multi-hash. A key change is the next serial with only the keys changed.
import { generateKeyPairSync } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { decodeTransaction } from '../../../packages/sandbox/src/topology/codec.ts';
import { multiHash, txHash } from '../../../packages/sandbox/src/topology/hash.ts';
import { PartyError } from '../../../src/parties/index.ts';
import {
  changedPartyToParticipant,
  type GovernedPartySpec,
  onboardingTopology,
  type TopologyPublicKey,
} from '../../../src/parties/topology.ts';
import { fingerprintOf } from '../../../src/signing/index.ts';

const ALGS = [
  ['ed25519', 'SIGNING_KEY_SPEC_EC_CURVE25519', 'ed25519'],
  ['p256', 'SIGNING_KEY_SPEC_EC_P256', 'prime256v1'],
  ['p384', 'SIGNING_KEY_SPEC_EC_P384', 'secp384r1'],
  ['secp256k1', 'SIGNING_KEY_SPEC_EC_SECP256K1', 'secp256k1'],
] as const;

/** A pool of real keys of every spec (made once: key generation is the slow part). */
const POOL: TopologyPublicKey[] = Array.from({ length: 12 }, (_, i) => {
  const [alg, keySpec, curve] = ALGS[i % ALGS.length]!;
  const { publicKey } =
    alg === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: curve });
  const spki = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }));
  return { fingerprint: fingerprintOf(alg, spki), publicKey: Buffer.from(spki).toString('base64'), keySpec };
});
const uid = (i: number) => `p${i}::1220${i.toString(16).padStart(64, '0')}`;

const specs = fc
  .record({
    picks: fc.uniqueArray(fc.integer({ min: 0, max: POOL.length - 1 }), { minLength: 2, maxLength: 7 }),
    m: fc.integer({ min: 1, max: 6 }),
    hosts: fc.array(fc.boolean(), { minLength: 0, maxLength: 4 }),
    c: fc.integer({ min: 1, max: 5 }),
    hint: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
  })
  .map(({ picks, m, hosts, c, hint }): GovernedPartySpec => {
    const [ns, ...keys] = picks.map((i) => POOL[i]!);
    const all = [
      { participantUid: uid(0), permission: 'confirmation' as const },
      ...hosts.map((confirms, i) => ({
        participantUid: uid(i + 1),
        permission: confirms ? ('confirmation' as const) : ('observation' as const),
      })),
    ];
    const confirming = all.filter((h) => h.permission === 'confirmation').length;
    return {
      partyId: `${hint}::${ns!.fingerprint}`,
      namespaceKey: ns!,
      signingKeys: keys,
      threshold: Math.min(m, keys.length),
      hosts: all,
      confirmationThreshold: Math.min(c, confirming),
    };
  });

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('a governed party’s topology', () => {
  test.prop([specs])('the sandbox’s codec and hasher read it as Quill meant it', (spec) => {
    const built = onboardingTopology(spec);
    const [nsd, p2p] = built.transactions.map((t) => decodeTransaction(t));
    expect(nsd?.mapping).toMatchObject({
      kind: 'NamespaceDelegation',
      namespace: spec.namespaceKey.fingerprint,
      root: true,
    });
    if (nsd?.mapping.kind === 'NamespaceDelegation') {
      expect(nsd.mapping.target.key.fingerprint).toBe(spec.namespaceKey.fingerprint);
      expect(nsd.mapping.target.usage).toEqual([1]);
    }
    expect(p2p).toMatchObject({ operation: 1, serial: 1 });
    const m = p2p?.mapping;
    if (m?.kind !== 'PartyToParticipant') throw new Error('not a PartyToParticipant');
    expect(m.party).toBe(spec.partyId);
    expect(m.threshold).toBe(spec.confirmationThreshold);
    expect(m.participants.map((h) => [h.uid, h.permission])).toEqual(
      spec.hosts.map((h) => [h.participantUid, h.permission === 'confirmation' ? 2 : 3]),
    );
    expect(m.signingKeys?.threshold).toBe(spec.threshold);
    expect(m.signingKeys?.keys.map((k) => k.key.fingerprint)).toEqual(
      spec.signingKeys.map((k) => k.fingerprint),
    );
    for (const k of m.signingKeys?.keys ?? []) expect(k.usage).toContain(4);
    expect(hex(txHash(built.transactions[1]!))).toBe(hex(built.partyToParticipantHash));
    expect(hex(multiHash(built.transactions.map((t) => txHash(t))))).toBe(hex(built.multiHash));
    // Deterministic: the same spec, the same bytes.
    expect(onboardingTopology(spec).transactions.map(hex)).toEqual(built.transactions.map(hex));
  });

  it('refuses what the participant would refuse, before anything is signed', () => {
    const [ns, a, b] = POOL;
    const base: GovernedPartySpec = {
      partyId: `x::${ns!.fingerprint}`,
      namespaceKey: ns!,
      signingKeys: [a!, b!],
      threshold: 2,
      hosts: [{ participantUid: uid(0), permission: 'confirmation' }],
      confirmationThreshold: 1,
    };
    expect(() => onboardingTopology(base)).not.toThrow();
    for (const bad of [
      { threshold: 3 },
      { threshold: 0 },
      { signingKeys: [a!, a!] },
      { signingKeys: [ns!, a!] },
      { confirmationThreshold: 2 },
    ]) {
      expect(() => onboardingTopology({ ...base, ...bad }), JSON.stringify(Object.keys(bad))).toThrow(
        PartyError,
      );
    }
  });

  test.prop([specs, fc.integer({ min: 0, max: POOL.length - 1 })])(
    'a key change is the next serial with only the keys changed',
    (spec, extra) => {
      const built = onboardingTopology(spec);
      const newKey = POOL[extra]!;
      const inSet = spec.signingKeys.some((k) => k.fingerprint === newKey.fingerprint);
      fc.pre(!inSet && newKey.fingerprint !== spec.namespaceKey.fingerprint);
      const removed = spec.signingKeys[0]!.fingerprint;
      const next = changedPartyToParticipant(
        built.transactions[1]!,
        spec.partyId,
        { add: [newKey], remove: [removed], threshold: 1 },
        spec.namespaceKey.fingerprint,
      );
      const read = decodeTransaction(next.transaction);
      expect(read.serial).toBe(2);
      expect(hex(read.hash)).toBe(hex(next.hash));
      if (read.mapping.kind !== 'PartyToParticipant') throw new Error('not a PartyToParticipant');
      expect(read.mapping.signingKeys?.keys.map((k) => k.key.fingerprint)).toEqual([
        ...spec.signingKeys.slice(1).map((k) => k.fingerprint),
        newKey.fingerprint,
      ]);
      expect(read.mapping.signingKeys?.threshold).toBe(1);
      expect(read.mapping.participants.map((h) => h.uid)).toEqual(spec.hosts.map((h) => h.participantUid));
      expect(read.mapping.threshold).toBe(spec.confirmationThreshold);
      expect(() =>
        changedPartyToParticipant(
          built.transactions[1]!,
          spec.partyId,
          { add: [], remove: [newKey.fingerprint] },
          spec.namespaceKey.fingerprint,
        ),
      ).toThrow(/not one of the party's signing keys/);
    },
  );
});
