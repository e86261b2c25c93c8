// Key changes of a governed party on the strict sandbox over its real gRPC admin API: the namespace key kept cold
// (its file out of KEYS_DIR) is named and nothing is sent; an added external key proves possession first; a change
// made elsewhere is adopted before building on it; without an admin API the answer names the fallback.
import { generateKeyPairSync, sign } from 'node:crypto';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { AdminApiError, TopologyAdminClient } from '@quill/canton/admin';
import { LedgerClient } from '@quill/canton/ledger';
import { type Sandbox, startAdminApi, startSandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHttpError } from '../../../src/api/errors.ts';
import {
  changePartyKeys,
  NO_ADMIN_API,
  onboardGovernedParty,
  PartyError,
  PartyRegistry,
} from '../../../src/parties/index.ts';
import { type KeyStore, type Signer, verifyingSigner } from '../../../src/signing/index.ts';
import { tempStore } from '../../support/keys.ts';

let sandbox: Sandbox;
let adminApi: { url: string; close(): Promise<void> };
let admin: TopologyAdminClient;
let keys: KeyStore;
let signer: Signer;
let registry: PartyRegistry;
let party: string;
let namespaceKey: string;
let first: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, scanPort: 0, host: '127.0.0.1', auth: 'none' });
  adminApi = await startAdminApi(sandbox.state.topology, { participantId: sandbox.state.participantId });
  admin = new TopologyAdminClient({ url: adminApi.url });
  keys = await tempStore();
  signer = verifyingSigner(keys);
  registry = new PartyRegistry({ dir: keys.dir });
  namespaceKey = (await keys.generate('ed25519', 'cold')).fingerprint;
  first = (await keys.generate('ed25519')).fingerprint;
  const made = await onboardGovernedParty({
    primary: new LedgerClient({ baseUrl: sandbox.url }),
    hosts: new Map(),
    signer,
    keys,
    registry,
    partyHint: 'rotating',
    namespaceKey,
    signingKeys: [{ fingerprint: first }],
    threshold: 1,
  });
  if (made.kind !== 'onboarded') throw new Error('not onboarded');
  party = made.record.partyId;
});
afterAll(async () => {
  admin?.close();
  await adminApi?.close();
  await sandbox?.close();
});

const base = () => ({ signer, keys, registry, partyId: party });

describe('changing a governed party’s keys', () => {
  it('without an admin API: refused, naming the fallback, nothing sent', async () => {
    const err = await changePartyKeys({ ...base(), admin: undefined, threshold: 1 }).catch((e) => e);
    expect(err).toBeInstanceOf(PartyError);
    expect(err.code).toBe('ADMIN_API_UNAVAILABLE');
    expect(err.message).toBe(NO_ADMIN_API);
    expect(err.message).toMatch(/onboard a new party with the new keys, move its holdings/);
  });

  it('an admin API that does not answer is a 503 naming it, and nothing changes', async () => {
    const dead = new TopologyAdminClient({ url: '127.0.0.1:9', deadlineMs: 2000 });
    try {
      const err = await changePartyKeys({ ...base(), admin: dead, threshold: 1 }).catch((e) => e);
      expect(err).toBeInstanceOf(AdminApiError);
      const answer = toHttpError(err);
      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe('ADMIN_API_UNREACHABLE');
    } finally {
      dead.close();
    }
  });

  it('with the namespace key kept cold: NAMESPACE_KEY_OFFLINE, and nothing changes until it is back', async () => {
    const extra = (await keys.generate('ed25519')).fingerprint;
    const file = join(keys.dir, `${namespaceKey}.json`);
    const away = join(keys.dir, '..', `${namespaceKey}.offline`);
    await rename(file, away);
    try {
      const err = await changePartyKeys({ ...base(), admin, add: [{ fingerprint: extra }] }).catch((e) => e);
      expect(err.code).toBe('NAMESPACE_KEY_OFFLINE');
      expect(
        (await admin.listPartyToParticipant({ party, synchronizerId: sandbox.state.defaultSynchronizer }))[0]
          ?.serial,
      ).toBe(1);
    } finally {
      await rename(away, file);
    }
    const done = await changePartyKeys({ ...base(), admin, add: [{ fingerprint: extra }] });
    expect(done.kind === 'changed' && done.record.serial).toBe(2);
  });

  it('an added external key proves possession of the change’s hash first', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const ref = {
      publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
      keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
      label: 'Ana',
    };
    const missing = await changePartyKeys({ ...base(), admin, add: [ref] }).catch((e) => e);
    expect(missing.code).toBe('SIGNATURES_NEEDED');
    const prepared = await changePartyKeys({ ...base(), admin, add: [ref], threshold: 2, prepareOnly: true });
    if (prepared.kind !== 'prepared') throw new Error('not prepared');
    const [fp] = prepared.prepared.awaiting;
    const signature = {
      format: 'SIGNATURE_FORMAT_CONCAT' as const,
      signature: sign(null, Buffer.from(prepared.prepared.hash, 'hex'), privateKey).toString('base64'),
      signedBy: fp as string,
      signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519' as const,
    };
    const done = await changePartyKeys({
      ...base(),
      admin,
      add: [ref],
      signatures: [signature],
      threshold: 2,
    });
    if (done.kind !== 'changed') throw new Error('not changed');
    expect(done.record).toMatchObject({ serial: 3, signing: { threshold: 2 } });
    expect(done.record.signing?.keys.at(-1)).toMatchObject({
      fingerprint: fp,
      holder: 'external',
      label: 'Ana',
    });
    expect(done.signedBy).toEqual([namespaceKey, fp]);
  });

  it('adopts a change made elsewhere (a newer serial on the participant) before building on it', async () => {
    // Quill's record falls one serial behind, as after a change that timed out waiting.
    const now = await registry.get(party);
    if (!now?.signing) throw new Error('no record');
    const behind = { ...now, serial: 2, signing: { threshold: 1, keys: now.signing.keys.slice(0, 2) } };
    await registry.replace(behind, 3);
    const done = await changePartyKeys({ ...base(), admin, threshold: 1 });
    if (done.kind !== 'changed') throw new Error('not changed');
    expect(done.record.serial).toBe(4);
    expect(done.record.signing?.keys).toHaveLength(3);
    // A key Quill did not hold nor know: external, its public key from the participant, no label.
    expect(done.record.signing?.keys[2]).toMatchObject({ holder: 'external', label: null });
  });
});

describe('onboarding on several hosts', () => {
  it('a host that has not allocated yet is ALLOCATION_PENDING; the same request again resumes it', async () => {
    const hosted = await startSandbox({
      port: 0,
      scanPort: 0,
      host: '127.0.0.1',
      auth: 'none',
      hosts: ['p2'],
    });
    try {
      const p2 = new LedgerClient({ baseUrl: hosted.hosts[0]?.url ?? '' });
      const key = (await keys.generate('ed25519')).fingerprint;
      const ns = (await keys.generate('ed25519')).fingerprint;
      // The first time, p2 answers as a host does before its approval is in: the party id, and nothing hosted yet.
      const late = {
        participantId: p2.participantId.bind(p2),
        getParty: p2.getParty.bind(p2),
        allocateExternalParty: async () => ({ partyId: `late::${ns}` }),
      };
      const request = {
        primary: new LedgerClient({ baseUrl: hosted.url }),
        signer,
        keys,
        registry,
        partyHint: 'late',
        namespaceKey: ns,
        signingKeys: [{ fingerprint: key }],
        threshold: 1,
        otherHosts: [{ host: 'p2', permission: 'confirmation' as const }],
        allocationTimeoutMs: 600,
      };
      const pending = await onboardGovernedParty({ ...request, hosts: new Map([['p2', late]]) }).catch(
        (e) => e,
      );
      expect(pending).toBeInstanceOf(PartyError);
      expect(pending.code).toBe('ALLOCATION_PENDING');
      expect(pending.message).toContain(`with namespaceKey ${ns}, resumes`);
      expect(await registry.get(`late::${ns}`)).toBeUndefined();
      const done = await onboardGovernedParty({ ...request, hosts: new Map([['p2', p2]]) });
      expect(done.kind).toBe('onboarded');
      expect((await p2.getParty(`late::${ns}`)).partyDetails?.map((p) => p.party)).toEqual([`late::${ns}`]);
    } finally {
      await hosted.close();
    }
  });
});
