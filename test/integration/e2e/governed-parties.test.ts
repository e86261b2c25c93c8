// Issue 33 end to end on the strict sandbox over real HTTP and real gRPC: M-of-N parties whose keys live in a file,
// in SoftHSM and with an external signer, onboarded with a cold namespace key; a party hosted by three
// participants; key changes through the admin API; and what the participant refuses (any one signature of a
// 2-of-3 party, a removed key's signature). Signatures are checked by the sandbox (node:crypto), not by Quill.
import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { TopologyAdminClient } from '@quill/canton/admin';
import { LedgerClient, type Signature } from '@quill/canton/ledger';
import { decodePreparedTransactionBase64, hashPreparedTransaction } from '@quill/canton/transaction';
import { type Sandbox, startAdminApi, startSandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPkcs11Backend } from '../../../src/signing/index.ts';
import { softhsmToken } from '../../support/softhsm.ts';
import { LEDGER_USER, noteCommand, prepareOn, startFullWallet, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let adminApi: { url: string; close(): Promise<void> };
let w: Awaited<ReturnType<typeof startFullWallet>>;
const token = softhsmToken('quill-e2e-governed');

/** An external signer: a key pair only this test holds. */
function externalSigner(label: string) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  return {
    label,
    ref: { publicKey: spki.toString('base64'), keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519', label },
    privateKey,
    fingerprint: '',
  };
}

function signWith(privateKey: KeyObject, signedBy: string, message: Uint8Array): Signature {
  return {
    format: 'SIGNATURE_FORMAT_CONCAT',
    signature: sign(null, message, privateKey).toString('base64'),
    signedBy,
    signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
  };
}

const hexBytes = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));

/** The audit chain's entries as field maps; `kind` undefined = signature entries. */
async function audit(kind: string | undefined) {
  const res = await w.call('GET', '/wallet/v1/audit?limit=1000');
  return (res.json.items as { fields: [string, string][] }[])
    .map((e) => Object.fromEntries(e.fields) as Record<string, string>)
    .filter((f) => f.kind === kind);
}

beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    scanPort: 0,
    host: '127.0.0.1',
    auth: 'none',
    hosts: ['p2', 'p3'],
  });
  adminApi = await startAdminApi(sandbox.state.topology, { participantId: sandbox.state.participantId });
  w = await startFullWallet(
    sandbox,
    walletConfig(inject('redisUrl')),
    'all',
    undefined,
    (dir) => [
      openPkcs11Backend({
        module: token.module,
        tokenLabel: token.tokenLabel,
        pin: token.pin,
        sessions: 2,
        dir,
      }),
    ],
    undefined,
    {
      hosts: new Map(sandbox.hosts.map((h) => [h.name, new LedgerClient({ baseUrl: h.url })])),
      admin: new TopologyAdminClient({ url: adminApi.url }),
      allocationTimeoutMs: 10_000,
    },
  );
});
afterAll(async () => {
  sandbox?.faults.configure({});
  await w?.wallet.close();
  await w?.keys.close();
  await adminApi?.close();
  await sandbox?.close();
});

async function newKey(algorithm: 'ed25519' | 'p256', backend?: 'pkcs11') {
  const res = await w.call('POST', '/wallet/v1/keys', { algorithm, ...(backend ? { backend } : {}) });
  expect(res.status).toBe(201);
  return res.json.fingerprint as string;
}

/** A note prepared for `party` on the sandbox: its hash recomputed here (the signatures cover it). */
async function preparedNote(party: string) {
  const prepared = await w.client.prepare({
    userId: LEDGER_USER,
    commandId: randomUUID(),
    actAs: [party],
    synchronizerId: '',
    packageIdSelectionPreference: [],
    commands: [noteCommand(party)],
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3',
  } as never);
  const hash = hashPreparedTransaction(
    decodePreparedTransactionBase64(prepared.preparedTransaction),
    'HASHING_SCHEME_VERSION_V3',
  );
  return { prepared, hash };
}

async function executeWith(
  party: string,
  prepared: { preparedTransaction: string },
  signatures: Signature[],
) {
  return w.client.executeAndWaitForTransaction({
    preparedTransaction: prepared.preparedTransaction,
    partySignatures: { signatures: [{ party, signatures }] },
    deduplicationPeriod: { Empty: {} },
    submissionId: randomUUID(),
    userId: LEDGER_USER,
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3',
  } as never);
}

/** A note for `party` through Quill's API (prepared on the sandbox, then submitted, `?wait` seconds). */
async function submitNote(party: string, wait = 20) {
  const body = await prepareOn(w.client, party, noteCommand(party));
  const res = await w.call('POST', `/wallet/v1/submissions${wait ? `?wait=${wait}` : ''}`, {
    ...body,
    party,
  });
  expect(res.status, JSON.stringify(res.json)).toBeLessThan(300);
  return res.json as { id: string; status: string; error?: { code: string } | null } & Record<
    string,
    unknown
  >;
}

async function waitFor(id: string, status: string) {
  // `?wait` holds the answer until the record is final: a status before that is polled.
  const final = ['committed', 'rejected', 'expired'].includes(status);
  let res = await w.call('GET', `/wallet/v1/submissions/${id}${final ? '?wait=20' : ''}`);
  for (let i = 0; !final && res.json.status !== status && i < 100; i++) {
    await new Promise((done) => setTimeout(done, 100));
    res = await w.call('GET', `/wallet/v1/submissions/${id}`);
  }
  expect(res.json.status, JSON.stringify(res.json.error)).toBe(status);
  return res.json;
}

const ana = externalSigner('Ana');
let vault: { party: string; fileKey: string; hsmKey: string; namespaceKey: string };

describe('an M-of-N party with a cold namespace key', () => {
  it('onboards 2 of 3 keys (file, SoftHSM, external) once the external key proves possession', async () => {
    const fileKey = await newKey('ed25519');
    const hsmKey = await newKey('p256', 'pkcs11');
    const namespaceKey = await newKey('ed25519');
    const body = {
      partyHint: 'vault',
      namespaceKey,
      signingKeys: [{ fingerprint: fileKey }, { fingerprint: hsmKey }, ana.ref],
      threshold: 2,
    };
    const refused = await w.call('POST', '/wallet/v1/parties', body);
    expect(refused.status).toBe(422);
    expect(refused.json.error?.code).toBe('SIGNATURES_NEEDED');
    const prepared = await w.call('POST', '/wallet/v1/parties/prepare', body);
    expect(prepared.status).toBe(200);
    const awaiting = prepared.json.awaiting as string[];
    expect(awaiting).toHaveLength(1);
    ana.fingerprint = awaiting[0] as string;
    // The same request gives the same bytes: what Ana signs is what is sent.
    expect((await w.call('POST', '/wallet/v1/parties/prepare', body)).json).toEqual(prepared.json);
    const proof = signWith(
      ana.privateKey,
      ana.fingerprint,
      hexBytes(prepared.json.partyToParticipantHash as string),
    );
    const bad = await w.call('POST', '/wallet/v1/parties', {
      ...body,
      signatures: [signWith(ana.privateKey, ana.fingerprint, hexBytes(prepared.json.multiHash as string))],
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).not.toContain(proof.signature);

    const made = await w.call('POST', '/wallet/v1/parties', { ...body, signatures: [proof] });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({
      partyId: `vault::${namespaceKey}`,
      keyFingerprint: namespaceKey,
      layout: 'separate',
      threshold: 2,
      serial: 1,
      signingKeys: [
        { fingerprint: fileKey, holder: 'quill' },
        { fingerprint: hsmKey, holder: 'quill' },
        { fingerprint: ana.fingerprint, holder: 'external', label: 'Ana' },
      ],
    });
    vault = { party: made.json.partyId as string, fileKey, hsmKey, namespaceKey };
    const onLedger = await w.client.getParty(vault.party);
    expect(onLedger.partyDetails?.map((p) => p.party)).toEqual([vault.party]);
    const [onboarded] = await audit('party.onboard');
    expect(onboarded?.signingKeys?.split(',')).toEqual([fileKey, hsmKey, ana.fingerprint]);
  });

  it('commits with any 2 of its 3 keys and never with 1', async () => {
    const signer = (await import('../../../src/signing/index.ts')).verifyingSigner(w.keys);
    const by = {
      file: (h: Uint8Array) => signer.sign(vault.fileKey, h),
      hsm: (h: Uint8Array) => signer.sign(vault.hsmKey, h),
      ana: async (h: Uint8Array) => signWith(ana.privateKey, ana.fingerprint, h),
    };
    for (const one of Object.values(by)) {
      const { prepared, hash } = await preparedNote(vault.party);
      await expect(
        executeWith(vault.party, prepared, [await one(hash), await one(hash)]),
      ).rejects.toMatchObject({
        code: 'FAILED_TO_EXECUTE_TRANSACTION',
        message: expect.stringContaining(
          'Received 1 valid signatures from distinct keys (0 invalid), but expected at least 2',
        ),
      });
    }
    for (const [a, b] of [
      ['file', 'hsm'],
      ['file', 'ana'],
      ['hsm', 'ana'],
    ] as const) {
      const { prepared, hash } = await preparedNote(vault.party);
      const done = await executeWith(vault.party, prepared, [await by[a](hash), await by[b](hash)]);
      expect(done.transaction.updateId, `${a}+${b}`).toBeTruthy();
    }
    // The namespace key is not a signing key: its signature does not count.
    const { prepared, hash } = await preparedNote(vault.party);
    await expect(
      executeWith(vault.party, prepared, [await by.file(hash), await signer.sign(vault.namespaceKey, hash)]),
    ).rejects.toMatchObject({ code: 'FAILED_TO_EXECUTE_TRANSACTION' });
  });

  it('through Quill: its two held keys sign at once and it commits; the namespace key signs nothing', async () => {
    const done = await submitNote(vault.party);
    expect(done.status, JSON.stringify(done.error)).toBe('committed');
    expect(done.signatureRound).toMatchObject({ threshold: 2 });
    const signed = (await audit(undefined))
      .filter((e) => e.submission === done.id)
      .map((e) => e.keyFingerprint);
    expect(signed.sort()).toEqual([vault.fileKey, vault.hsmKey].sort());
    expect((await audit(undefined)).some((e) => e.keyFingerprint === vault.namespaceKey)).toBe(false);
  });

  it('a round waits for the external signer, verifies what it posts, then commits once', async () => {
    const key = await newKey('p256');
    const bo = externalSigner('Bo');
    const namespaceKey = await newKey('ed25519');
    const body = {
      partyHint: 'duo',
      namespaceKey,
      signingKeys: [{ fingerprint: key }, bo.ref],
      threshold: 2,
    };
    const prepared = await w.call('POST', '/wallet/v1/parties/prepare', body);
    bo.fingerprint = (prepared.json.awaiting as string[])[0] as string;
    const proof = signWith(
      bo.privateKey,
      bo.fingerprint,
      hexBytes(prepared.json.partyToParticipantHash as string),
    );
    const made = await w.call('POST', '/wallet/v1/parties', { ...body, signatures: [proof] });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    const party = made.json.partyId as string;

    const waiting = await submitNote(party, 0);
    expect((await waitFor(waiting.id, 'awaiting_signatures')).signatureRound).toMatchObject({ threshold: 2 });
    const round = (await w.call('GET', `/wallet/v1/submissions/${waiting.id}/signatures`)).json as {
      hash: string;
      awaiting: { fingerprint: string }[];
    };
    expect(round.awaiting.map((k) => k.fingerprint)).toEqual([bo.fingerprint]);
    const wrong = await w.call('POST', `/wallet/v1/submissions/${waiting.id}/signatures`, {
      signature: signWith(bo.privateKey, bo.fingerprint, new Uint8Array(32)),
    });
    expect(wrong.json.error?.code).toBe('BAD_SIGNATURE');
    const posted = await w.call('POST', `/wallet/v1/submissions/${waiting.id}/signatures`, {
      signature: signWith(bo.privateKey, bo.fingerprint, hexBytes(round.hash)),
    });
    expect(posted.status, JSON.stringify(posted.json)).toBe(200);
    const done = await waitFor(waiting.id, 'committed');
    expect(done.updateId).toBeTruthy();
  });

  it('a namespace key is made for a party when none is named', async () => {
    const a = await newKey('ed25519');
    const b = await newKey('ed25519');
    const made = await w.call('POST', '/wallet/v1/parties', {
      partyHint: 'ops',
      signingKeys: [{ fingerprint: a }, { fingerprint: b }],
      threshold: 1,
    });
    expect(made.status).toBe(201);
    const ns = made.json.keyFingerprint as string;
    expect([a, b]).not.toContain(ns);
    expect((await w.call('GET', `/wallet/v1/keys/${ns}`)).json).toMatchObject({ label: 'namespace of ops' });
  });
});

describe('a party hosted by three participants', () => {
  it('is allocated on every host with threshold 2 and exists on each', async () => {
    const key = await newKey('ed25519');
    const made = await w.call('POST', '/wallet/v1/parties', {
      partyHint: 'shared',
      signingKeys: [{ fingerprint: key }],
      threshold: 1,
      hosts: [
        { host: 'p2', permission: 'confirmation' },
        { host: 'p3', permission: 'confirmation' },
      ],
      confirmationThreshold: 2,
    });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    const party = made.json.partyId as string;
    expect(made.json).toMatchObject({ confirmationThreshold: 2 });
    expect((made.json.hosts as { host: string | null }[]).map((h) => h.host)).toEqual([null, 'p2', 'p3']);
    for (const h of sandbox.hosts) {
      const there = await new LedgerClient({ baseUrl: h.url }).getParty(party);
      expect(
        there.partyDetails?.map((p) => p.party),
        h.name,
      ).toEqual([party]);
    }
    // It transacts: the one signing key signs, the participant counts it.
    const signer = (await import('../../../src/signing/index.ts')).verifyingSigner(w.keys);
    const { prepared, hash } = await preparedNote(party);
    const done = await executeWith(party, prepared, [await signer.sign(key, hash)]);
    expect(done.transaction.updateId).toBeTruthy();
    expect((await submitNote(party)).status).toBe('committed');
  });

  it('refuses a host LEDGER_HOSTS does not name, and makes no namespace key for a refused request', async () => {
    const key = await newKey('ed25519');
    const before = ((await w.call('GET', '/wallet/v1/keys')).json.items as unknown[]).length;
    const res = await w.call('POST', '/wallet/v1/parties', {
      partyHint: 'nowhere',
      signingKeys: [{ fingerprint: key }],
      threshold: 1,
      hosts: [{ host: 'p9', permission: 'observation' }],
    });
    expect(res.status).toBe(400);
    expect(res.json.error?.code).toBe('UNKNOWN_HOST');
    expect(((await w.call('GET', '/wallet/v1/keys')).json.items as unknown[]).length).toBe(before);
  });
});

describe('key changes through the admin API', () => {
  it('adds a key, waits until effective, removes the old one: the old key no longer counts', async () => {
    // Work signed under the old set, held in the queue (the participant answers 503) across the change.
    sandbox.faults.configure({
      rules: [{ kind: 'unavailable', endpoint: '/v2/interactive-submission/execute*' }],
    });
    const queued = await submitNote(vault.party, 0);
    for (let i = 0; i < 100; i++) {
      const r = await w.call('GET', `/wallet/v1/submissions/${queued.id}`);
      if ((r.json.attempts as unknown[]).length > 0) break;
      await new Promise((done) => setTimeout(done, 100));
    }
    const fresh = await newKey('ed25519');
    const added = await w.call('POST', `/wallet/v1/parties/${encodeURIComponent(vault.party)}/keys`, {
      add: [{ fingerprint: fresh }],
    });
    expect(added.status, JSON.stringify(added.json)).toBe(200);
    expect(added.json.party).toMatchObject({ serial: 2, threshold: 2 });
    const removed = await w.call('POST', `/wallet/v1/parties/${encodeURIComponent(vault.party)}/keys`, {
      remove: [vault.fileKey],
    });
    expect(removed.status, JSON.stringify(removed.json)).toBe(200);
    expect(removed.json).toMatchObject({ removed: [vault.fileKey], party: { serial: 3 } });
    const keys = (removed.json.party as { signingKeys: { fingerprint: string }[] }).signingKeys.map(
      (k) => k.fingerprint,
    );
    expect(keys).toEqual([vault.hsmKey, ana.fingerprint, fresh]);

    // The queued record: the removed key's signature dropped, the set's Quill keys sign again, it commits once.
    sandbox.faults.configure({});
    const settled = await waitFor(queued.id, 'committed');
    expect(settled.updateId).toBeTruthy();
    const resigned = (await audit(undefined)).filter(
      (e) => e.submission === queued.id && e.actor === 'worker',
    );
    expect(resigned.map((e) => e.keyFingerprint)).toContain(fresh);

    const signer = (await import('../../../src/signing/index.ts')).verifyingSigner(w.keys);
    let { prepared, hash } = await preparedNote(vault.party);
    await expect(
      executeWith(vault.party, prepared, [
        await signer.sign(vault.fileKey, hash),
        await signer.sign(vault.hsmKey, hash),
      ]),
    ).rejects.toMatchObject({ code: 'FAILED_TO_EXECUTE_TRANSACTION' });
    ({ prepared, hash } = await preparedNote(vault.party));
    const done = await executeWith(vault.party, prepared, [
      await signer.sign(fresh, hash),
      await signer.sign(vault.hsmKey, hash),
    ]);
    expect(done.transaction.updateId).toBeTruthy();

    // Each change is in the audit chain, signed by the namespace key (and the added key).
    const changes = await audit('party.keys');
    expect(changes.map((c) => c.serial)).toEqual(['2', '3']);
    expect(changes[0]?.signedBy?.split(',')).toEqual([vault.namespaceKey, fresh]);
    expect(changes[1]?.signedBy?.split(',')).toEqual([vault.namespaceKey]);
  });

  it('refuses a change the participant would refuse, before signing anything', async () => {
    const res = await w.call('POST', `/wallet/v1/parties/${encodeURIComponent(vault.party)}/keys`, {
      threshold: 4,
    });
    expect(res.status).toBe(400);
    expect((await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(vault.party)}`)).json).toMatchObject(
      {
        serial: 3,
        threshold: 2,
      },
    );
  });
});
