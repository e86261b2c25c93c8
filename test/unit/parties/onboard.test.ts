// Onboarding against a real HTTP participant (test/parties/fake-participant.ts) that checks the
// multi-hash signature with node:crypto.

import { randomBytes } from 'node:crypto';
import { LedgerClient } from '@quill/canton/ledger';
import { topologyMultiHash } from '@quill/canton/transaction';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OnboardingLedger,
  onboardExternalParty,
  PartyError,
  PartyRegistry,
  parsePartyId,
  partyHintProblem,
} from '../../../src/parties/index.ts';
import { KEY_ALGORITHMS, type KeyStore, verifyingSigner } from '../../../src/signing/index.ts';
import {
  type FakeParticipant,
  multiHashOf,
  SYNCHRONIZER,
  startFakeParticipant,
} from '../../support/fake-participant.ts';
import { tempStore } from '../../support/keys.ts';

let participant: FakeParticipant;
let keys: KeyStore;
let registry: PartyRegistry;
let ledger: OnboardingLedger;

beforeAll(async () => {
  participant = await startFakeParticipant();
  keys = await tempStore();
  registry = new PartyRegistry({ dir: keys.dir });
  ledger = new LedgerClient({ baseUrl: participant.url });
});
afterAll(() => participant.close());

const onboard = (keyFingerprint: string, partyHint: string, synchronizerId?: string) =>
  onboardExternalParty({
    ledger,
    signer: verifyingSigner(keys),
    keys,
    registry,
    keyFingerprint,
    partyHint,
    ...(synchronizerId ? { synchronizerId } : {}),
  });

describe('onboardExternalParty', () => {
  it('the test participant hashes topology like src/transaction', () => {
    const txs = [randomBytes(50), randomBytes(70), randomBytes(50)];
    expect(Buffer.from(topologyMultiHash(txs))).toEqual(multiHashOf(txs));
  });

  it.each(KEY_ALGORITHMS)(
    '%s: allocates hint::fingerprint with a verified multi-hash signature',
    async (alg) => {
      const key = await keys.generate(alg, `party key ${alg}`);
      const party = await onboard(key.fingerprint, `alice-${alg}`);
      expect(party).toEqual({
        partyId: `alice-${alg}::${key.fingerprint}`,
        keyFingerprint: key.fingerprint,
        synchronizerId: SYNCHRONIZER,
      });
      expect(participant.allocated.get(party.partyId)).toBe(SYNCHRONIZER);
      expect(await registry.get(party.partyId)).toMatchObject(party);
      expect((await registry.forKey(key.fingerprint)).map((r) => r.partyId)).toEqual([party.partyId]);
    },
  );

  it('is idempotent, and records a party the participant already has', async () => {
    const key = await keys.generate('ed25519');
    const first = await onboard(key.fingerprint, 'bob', SYNCHRONIZER);
    const calls = participant.calls.length;
    expect(await onboard(key.fingerprint, 'bob', SYNCHRONIZER)).toEqual(first);
    expect(participant.calls.length).toBe(calls); // answered from the registry
    // allocated on the ledger but never recorded (a crash between the two steps)
    const other = await keys.generate('ed25519');
    participant.allocated.set(`carol::${other.fingerprint}`, SYNCHRONIZER);
    expect(await onboard(other.fingerprint, 'carol')).toMatchObject({
      partyId: `carol::${other.fingerprint}`,
    });
    expect(await registry.get(`carol::${other.fingerprint}`)).toBeDefined();
  });

  it.each(['partyId', 'fingerprint', 'multiHash'] as const)(
    'signs nothing when the participant answers with another %s',
    async (tamper) => {
      const key = await keys.generate('p256');
      participant.tamper = tamper;
      const before = participant.allocated.size;
      const calls = participant.calls.length;
      await expect(onboard(key.fingerprint, 'mallory')).rejects.toMatchObject({ code: 'MISMATCH' });
      expect(participant.allocated.size).toBe(before);
      expect(participant.calls.slice(calls).some((c) => c.includes('allocate'))).toBe(false);
      expect(await registry.list()).not.toContainEqual(
        expect.objectContaining({ keyFingerprint: key.fingerprint }),
      );
    },
  );

  it('refuses a disabled key, a bad hint and a bad fingerprint before calling the ledger', async () => {
    const key = await keys.generate('secp256k1');
    await keys.disable(key.fingerprint);
    const calls = participant.calls.length;
    await expect(onboard(key.fingerprint, 'dave')).rejects.toMatchObject({ code: 'KEY_DISABLED' });
    await expect(onboard(key.fingerprint, 'da::ve')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(onboard('1220', 'dave')).rejects.toBeInstanceOf(PartyError);
    expect(participant.calls.length).toBe(calls);
  });

  it('a party registered on one synchronizer is not silently re-onboarded on another', async () => {
    const key = await keys.generate('ed25519');
    await onboard(key.fingerprint, 'erin', SYNCHRONIZER);
    await expect(onboard(key.fingerprint, 'erin', 'other::1220aa')).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });
});

describe('party hints', () => {
  it('accepts what the participant accepts', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_\- ][A-Za-z0-9_\- ]{0,100}$/), (hint) => {
        expect(partyHintProblem(hint)).toBeUndefined();
        const fp = `1220${'c'.repeat(64)}`;
        expect(parsePartyId(`${hint}::${fp}`)).toEqual({ hint, fingerprint: fp });
      }),
    );
    expect(partyHintProblem('a:b')).toBeUndefined();
    expect(partyHintProblem('x'.repeat(185))).toBeUndefined();
  });

  it('refuses empty, long, delimiter and foreign characters', () => {
    for (const bad of ['', 'x'.repeat(186), 'a::b', 'a:', 'a/b', 'é', 'a.b', 'a\nb']) {
      expect(partyHintProblem(bad)).toBeDefined();
    }
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('!', '.', '/', '@', '\u0000', 'ü'), (s, bad) => {
        expect(partyHintProblem(`${s}${bad}`)).toBeDefined();
      }),
    );
  });
});
