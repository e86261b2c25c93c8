// A party hosted on three participants of one sandbox: allocate on each host with the same signed bytes; the
// proposal is merged by hash and becomes active with the last approval (external-party-keys.md §3.2, §4.3(a)).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SandboxError } from '../src/errors.ts';
import { call, newKey, publicKeyJson, type Sandbox, sandboxWithAdmin, signWith } from './helpers.ts';
import { fingerprint, NAMESPACE, PROTOCOL, p2p, txHash as txHashOf } from './topology-encoder.ts';
import { allocate, allocateBody, expectLegacy, GENERATE } from './topology-helpers.ts';

let sb: Sandbox;
let admin: string;
beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin({
    hosts: ['p2', 'p3'],
    ledger: { otherParticipants: [`auto::1220${'f'.repeat(64)}`] },
  }));
});
afterAll(() => sb?.close());

const visibleOn = async (url: string, party: string) =>
  (await call(url, 'GET', `/v2/parties/${party}`, undefined, admin)).json.partyDetails.length === 1;

describe('three hosts, confirmation threshold 2', () => {
  test('generate on one host, allocate on each: visible everywhere only after the last', async () => {
    const key = newKey('ed25519');
    const [p2, p3] = sb.hosts;
    const topo = await call(
      sb.url,
      'POST',
      GENERATE,
      {
        synchronizer: sb.state.defaultSynchronizer,
        partyHint: 'multi',
        publicKey: publicKeyJson(key),
        otherConfirmingParticipantUids: [p2!.participantId, p3!.participantId],
        confirmationThreshold: 2,
      },
      admin,
    );
    expect(topo.status, topo.text).toBe(200);
    const { partyId, topologyTransactions, multiHash, publicKeyFingerprint } = topo.json;
    const body = {
      synchronizer: sb.state.defaultSynchronizer,
      onboardingTransactions: topologyTransactions.map((transaction: string) => ({ transaction })),
      multiHashSignatures: [signWith(key, Buffer.from(multiHash, 'base64'), publicKeyFingerprint)],
    };
    const urls = [sb.url, p2!.url, p3!.url];
    for (const [i, url] of urls.entries()) {
      const a = await allocate(url, admin, body);
      expect(a.status, a.text).toBe(200);
      expect(a.json.partyId).toBe(partyId);
      const last = i === urls.length - 1;
      for (const u of urls) expect(await visibleOn(u, partyId)).toBe(last);
      const proposals = sb.state.topology.listPartyToParticipant({ filterParty: partyId, proposals: true });
      expect(proposals.length).toBe(last ? 0 : 1);
      if (!last) expect(proposals[0]!.signedBy).toContain(publicKeyFingerprint);
    }
    const [active] = sb.state.topology.listPartyToParticipant({ filterParty: partyId, proposals: false });
    expect(active).toMatchObject({ serial: 1, proposal: false, operation: 'add-replace', partyId });
    expect(active!.signedBy).toEqual(
      expect.arrayContaining([
        publicKeyFingerprint,
        sb.state.participantId,
        p2!.participantId,
        p3!.participantId,
      ]),
    );
    // A late host gets "already exists" (400), which clients treat as success (§3.4).
    const late = await allocate(p2!.url, admin, body);
    expect([late.status, late.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
  });

  test('a host that is not listed is refused; a P2P listing an unknown participant is TOPOLOGY_UNKNOWN_MEMBERS', async () => {
    const k = newKey('ed25519');
    const party = `nl::${fingerprint(k)}`;
    const keys = [{ key: k, usage: [NAMESPACE, PROTOCOL] }];
    const tx = p2p({
      party,
      threshold: 1,
      hosts: [
        { uid: sb.state.participantId, permission: 2 },
        { uid: sb.hosts[0]!.participantId, permission: 3 },
      ],
      keys,
    });
    const a = await allocate(sb.hosts[1]!.url, admin, allocateBody(sb, { txs: [tx], multi: [k] }));
    expect(a.json.cause, a.text).toBe(
      `The submitted request has invalid arguments: This node (${sb.hosts[1]!.participantId}) is not listed as a hosting participant of the party ${party}`,
    );
    const unknown = p2p({
      party,
      threshold: 1,
      hosts: [
        { uid: sb.state.participantId, permission: 2 },
        { uid: `ghost::1220${'0'.repeat(64)}`, permission: 2 },
      ],
      keys,
    });
    expectLegacy(
      await allocate(sb.url, admin, allocateBody(sb, { txs: [unknown], multi: [k] })),
      'TOPOLOGY_UNKNOWN_MEMBERS',
      404,
      5,
    );
  });

  test('otherParticipants have no API: their approval is assumed, so one allocate activates', async () => {
    const k = newKey('ed25519');
    const party = `auto::${fingerprint(k)}`;
    const tx = p2p({
      party,
      threshold: 2,
      hosts: [
        { uid: sb.state.participantId, permission: 2 },
        { uid: sb.state.otherParticipants[0]!, permission: 2 },
      ],
      keys: [{ key: k, usage: [NAMESPACE, PROTOCOL] }],
    });
    const a = await allocate(sb.url, admin, allocateBody(sb, { txs: [tx], multi: [k] }));
    expect(a.status, a.text).toBe(200);
    expect(await visibleOn(sb.url, party)).toBe(true);
  });

  test('the admin API path: a proposal adding a host waits for Authorize on that host', async () => {
    const k = newKey('ed25519');
    const party = `add::${fingerprint(k)}`;
    const keys = [{ key: k, usage: [NAMESPACE, PROTOCOL] }];
    const one = p2p({ party, threshold: 1, hosts: [{ uid: sb.state.participantId, permission: 2 }], keys });
    expect((await allocate(sb.url, admin, allocateBody(sb, { txs: [one], multi: [k] }))).status).toBe(200);
    const p2 = sb.hosts[0]!;
    const two = p2p({
      party,
      threshold: 1,
      hosts: [
        { uid: sb.state.participantId, permission: 2 },
        { uid: p2.participantId, permission: 3 },
      ],
      keys,
      serial: 2,
    });
    const opts = { synchronizerId: sb.state.defaultSynchronizer, participantId: sb.state.participantId };
    const sigOver = (tx: Uint8Array) => {
      const s = signWith(k, Buffer.from(txHashOf(tx)), fingerprint(k));
      return { ...s, signature: Buffer.from(s.signature, 'base64') } as never;
    };
    // Not a proposal: the missing host approval is an error.
    expect(() =>
      sb.state.topology.addTransactions(
        [{ transaction: two, signatures: [sigOver(two)], multiTransactionSignatures: [], proposal: false }],
        opts,
      ),
    ).toThrow(SandboxError);
    const [stored] = sb.state.topology.addTransactions(
      [{ transaction: two, signatures: [sigOver(two)], multiTransactionSignatures: [], proposal: true }],
      opts,
    );
    expect(stored).toMatchObject({ serial: 2, proposal: true });
    expect(await visibleOn(p2.url, party)).toBe(false);
    const done = sb.state.topology.authorize(stored!.hashHex, {
      participantId: p2.participantId,
      synchronizerId: sb.state.defaultSynchronizer,
    });
    expect(done.proposal).toBe(false);
    expect(await visibleOn(p2.url, party)).toBe(true);
  });
});
