// Pure pieces of the sandbox: decimals, fingerprints, vetting pagination, user updates, the update log.

import { generateKeyPairSync } from 'node:crypto';
import { fc, test as fcTest } from '@fast-check/vitest';
import { checkUpdateUserRequest } from '@quill/canton/ledger';
import { describe, expect, test } from 'vitest';
import { formatAmount, parseAmount } from '../src/decimal.ts';
import { SandboxError } from '../src/errors.ts';
import { fingerprintOf, parsePublicKey } from '../src/keys.ts';
import { PackageStore } from '../src/state/packages.ts';
import { UserStore } from '../src/state/users.ts';

describe('Numeric 10 amounts', () => {
  fcTest.prop([fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n })])(
    'format → parse round-trips',
    (units) => {
      const text = formatAmount(units);
      expect(text).toMatch(/^-?\d+\.\d{10}$/);
      expect(parseAmount(text)).toBe(units);
    },
  );
  fcTest.prop([fc.string()])('parse never throws and refuses non-decimals', (s) => {
    const v = parseAmount(s);
    if (v !== undefined) expect(s).toMatch(/^-?\d{1,28}(\.\d{1,10})?$/);
  });
  test('examples', () => {
    expect(parseAmount('1.5')).toBe(15_000_000_000n);
    expect(parseAmount('1.12345678901')).toBeUndefined();
    expect(parseAmount(1.5)).toBeUndefined();
    expect(formatAmount(-5n)).toBe('-0.0000000005');
  });
});

describe('keys', () => {
  test('Ed25519 fingerprints use the raw key whether given RAW or as SPKI', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const spki = publicKey.export({ format: 'der', type: 'spki' });
    const a = parsePublicKey('CRYPTO_KEY_FORMAT_RAW', spki.subarray(12), 'SIGNING_KEY_SPEC_EC_CURVE25519');
    const b = parsePublicKey(
      'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
      spki,
      'SIGNING_KEY_SPEC_EC_CURVE25519',
    );
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.fingerprint).toBe(fingerprintOf(spki.subarray(12)));
    expect(a.fingerprint).toMatch(/^1220[0-9a-f]{64}$/);
  });
  test('EC fingerprints use the SPKI; a key that does not match its spec is refused', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const spki = publicKey.export({ format: 'der', type: 'spki' });
    expect(
      parsePublicKey('CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO', spki, 'SIGNING_KEY_SPEC_EC_P256')
        .fingerprint,
    ).toBe(fingerprintOf(spki));
    expect(() =>
      parsePublicKey('CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO', spki, 'SIGNING_KEY_SPEC_EC_P384'),
    ).toThrow(/declared/);
    expect(() =>
      parsePublicKey('CRYPTO_KEY_FORMAT_DER', Buffer.from('garbage'), 'SIGNING_KEY_SPEC_EC_P256'),
    ).toThrow();
  });
});

describe('package vetting listing', () => {
  function store(n: number): PackageStore {
    const s = new PackageStore(100);
    for (let i = 0; i < n; i++) {
      const p = s.upload(i % 2 ? `app-${i}` : `lib-${i}`);
      s.vet(`participant${i % 3}`, `sync${i % 4}`, { packageId: p.packageId });
    }
    return s;
  }

  test('sorted by synchronizer then participant; page tokens stay valid as packages are added', () => {
    const s = store(24);
    const first = s.list({}, '', 5);
    expect(first.vettedPackages).toHaveLength(5);
    const keys = first.vettedPackages.map((v) => `${v.synchronizerId}/${v.participantId}`);
    expect(keys).toEqual([...keys].sort());
    // A package added before the page boundary does not shift what the token returns.
    const added = s.upload('late-package');
    s.vet('participant0', 'sync0', { packageId: added.packageId });
    const second = s.list({}, first.nextPageToken, 100);
    const last = first.vettedPackages[4]!;
    for (const v of second.vettedPackages) {
      expect(`${v.synchronizerId}/${v.participantId}` > `${last.synchronizerId}/${last.participantId}`).toBe(
        true,
      );
    }
    // As ApiPackageService: every non-empty page names its last item, the final one too; the page after
    // it is empty and has no token.
    expect(second.nextPageToken).not.toBe('');
    expect(s.list({}, second.nextPageToken, 100)).toEqual({ vettedPackages: [], nextPageToken: '' });
    expect(first.vettedPackages.length + second.vettedPackages.length).toBe(12);
  });

  test('ids compare identifier first, then namespace (orderingIdentifierThenNamespace), not as strings', () => {
    const s = new PackageStore(100);
    const p = s.upload('pkg');
    // As plain strings 'a-b::aa' < 'a::zz' ('-' < ':'); by identifier 'a' < 'a-b'.
    for (const sync of ['a-b::aa', 'a::zz', 'a::bb'])
      for (const participant of ['p-q::11', 'p::99']) s.vet(participant, sync, { packageId: p.packageId });
    const order = s.list({}, '', 0).vettedPackages.map((v) => `${v.synchronizerId} ${v.participantId}`);
    expect(order).toEqual([
      'a::bb p::99',
      'a::bb p-q::11',
      'a::zz p::99',
      'a::zz p-q::11',
      'a-b::aa p::99',
      'a-b::aa p-q::11',
    ]);
    // Paging one by one walks the same order.
    const walked: string[] = [];
    let token = '';
    for (;;) {
      const page = s.list({}, token, 1);
      if (page.vettedPackages.length === 0) break;
      walked.push(...page.vettedPackages.map((v) => `${v.synchronizerId} ${v.participantId}`));
      token = page.nextPageToken;
    }
    expect(walked).toEqual(order);
  });

  test('filters: package name prefixes, package ids, participants, synchronizers; page size limits', () => {
    const s = store(12);
    const libs = s.list({ packageNamePrefixes: ['lib-'] }, '', 0);
    for (const v of libs.vettedPackages) for (const p of v.packages) expect(p.packageName).toMatch(/^lib-/);
    const only = s.list({ participantIds: ['participant1'], synchronizerIds: ['sync1'] }, '', 0);
    expect(
      only.vettedPackages.every((v) => v.participantId === 'participant1' && v.synchronizerId === 'sync1'),
    ).toBe(true);
    expect(() => s.list({}, '', 101)).toThrow(SandboxError);
    expect(() => s.list({}, 'not base64 at all!', 1)).toThrow(SandboxError);
  });
});

describe('user updates', () => {
  test('field mask, resource version, annotation merge', () => {
    const users = new UserStore();
    users.create({ id: 'u', metadata: { annotations: { a: '1', b: '2' } } }, []);
    const u1 = users.update({ id: 'u', metadata: { annotations: { a: '', c: '3' } } }, [
      'metadata.annotations',
    ]);
    expect(u1.annotations).toEqual({ b: '2', c: '3' });
    expect(u1.resourceVersion).toBe(1);
    const u2 = users.update({ id: 'u', metadata: { annotations: { z: '9' } } }, ['metadata.annotations']);
    expect(u2.annotations).toEqual({ b: '2', c: '3', z: '9' });
    expect(() => users.update({ id: 'u', metadata: { resourceVersion: '0' } }, ['primary_party'])).toThrow(
      /CONCURRENT/,
    );
    // The mask itself is the endpoint rule's to check (src/ledger/rules.ts), before the store sees it.
    expect(
      checkUpdateUserRequest('u', {
        user: { id: 'u' },
        updateMask: { paths: ['id', 'id'], unknownFields: { fields: {} } },
      }),
    ).toMatchObject({
      code: 'INVALID_USER_UPDATE_REQUEST',
      reason: expect.stringMatching(/duplicated/),
    });
    // Paths naming immutable fields are accepted and change nothing but the version: the participant's store
    // bumps it on every successful update, a no-op included.
    expect(users.update({ id: 'u' }, ['id', 'metadata.resource_version']).resourceVersion).toBe(3);
  });
});
