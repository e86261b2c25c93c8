/**
 * Parties: listing, lookup, local allocation, and external party onboarding (generate-topology returns the
 * topology transactions and their multi-hash; allocate checks the key's signature over it, ledger-json-api.md
 * §4.3). The topology transactions are the sandbox's own self-describing encoding: clients only hash them.
 */
import { endpoints as E } from '@quill/canton/ledger';
import { topologyMultiHash, topologyTransactionHash } from '@quill/canton/transaction';
import { isAdmin, permissionDenied, requireIdpAdmin } from '../auth.ts';
import { err, SandboxError } from '../errors.ts';
import { checkSignature, parsePublicKey } from '../keys.ts';
import type { PartyRecord, TopologyEventRecord } from '../state/index.ts';
import { type App, type Ctx, caller, type Services, serve } from './http.ts';

const MARKER = 'quill-sandbox-topology/v1';
const HINT = /^[A-Za-z0-9_-][A-Za-z0-9_ -]{0,184}$/;

interface TopologyTx {
  marker: string;
  mapping: 'PartyToParticipant';
  serial: number;
  partyId: string;
  synchronizer: string;
  key: { spki: string; keySpec: string; fingerprint: string };
  threshold: number;
  participants: { participantId: string; permission: TopologyEventRecord['permission'] }[];
}

function invalidSignature(why: string) {
  return new SandboxError(
    'TOPOLOGY_INVALID_TX_SIGNATURE',
    8,
    `Topology transaction has an invalid signature: ${why}`,
  );
}

function partyJson(p: PartyRecord) {
  return {
    party: p.partyId,
    // Hosted on this participant (external parties too): that is what isLocal reports.
    isLocal: true,
    localMetadata: { resourceVersion: '0', annotations: p.annotations },
    identityProviderId: p.identityProviderId,
  };
}

function requireListParties(c: Ctx): void {
  const who = caller(c);
  if (
    who.wildcard ||
    isAdmin(who) ||
    who.user?.rights.some((r) => r.kind === 'CanReadAsAnyParty' || r.kind === 'IdentityProviderAdmin')
  ) {
    return;
  }
  throw permissionDenied('ParticipantAdmin or CanReadAsAnyParty right required');
}

export function partyRoutes(app: App, { state }: Services): void {
  serve(app, E.listParties, (c, { query }) => {
    requireListParties(c);
    const filter = query['filter-party'];
    const list = [...state.parties.values()].filter((p) => !filter || p.partyId.includes(filter));
    return c.json({ partyDetails: list.map(partyJson), nextPageToken: '' });
  });

  serve(app, E.participantId, (c) => c.json({ participantId: state.participantId }));

  serve(app, E.getParty, (c, { params }) => {
    requireListParties(c);
    const p = state.parties.get(params.party);
    return c.json({ partyDetails: p ? [partyJson(p)] : [] });
  });

  serve(app, E.allocateParty, (c, { body }) => {
    requireIdpAdmin(caller(c), body.identityProviderId ?? '');
    const hint = body.partyIdHint || `party-${Math.random().toString(16).slice(2, 10)}`;
    if (!HINT.test(hint))
      throw err.invalidField('party_id_hint', `"${hint.slice(0, 40)}" is not a valid party hint`);
    const party = state.allocateLocalParty(hint, body.synchronizerId || state.defaultSynchronizer);
    if (body.userId) state.users.grant(body.userId, [{ kind: 'CanActAs', party: party.partyId }]);
    return c.json({ partyDetails: partyJson(party) });
  });

  serve(app, E.generateExternalPartyTopology, (c, { body }) => {
    requireIdpAdmin(caller(c), '');
    if (!state.synchronizers.some((s) => s.id === body.synchronizer)) {
      throw err.invalidField('synchronizer', `unknown synchronizer ${body.synchronizer}`);
    }
    if (!HINT.test(body.partyHint))
      throw err.invalidField('party_hint', `"${body.partyHint.slice(0, 40)}" is not a valid party hint`);
    let key: ReturnType<typeof parsePublicKey>;
    try {
      key = parsePublicKey(
        body.publicKey.format,
        Buffer.from(body.publicKey.keyData, 'base64'),
        body.publicKey.keySpec,
      );
    } catch (e) {
      throw err.invalidField('public_key', (e as Error).message);
    }
    const participants: TopologyTx['participants'] = [
      {
        participantId: state.participantId,
        permission: body.localParticipantObservationOnly
          ? 'PARTICIPANT_PERMISSION_OBSERVATION'
          : 'PARTICIPANT_PERMISSION_CONFIRMATION',
      },
      ...(body.otherConfirmingParticipantUids ?? []).map((p) => ({
        participantId: p,
        permission: 'PARTICIPANT_PERMISSION_CONFIRMATION' as const,
      })),
      ...(body.observingParticipantUids ?? []).map((p) => ({
        participantId: p,
        permission: 'PARTICIPANT_PERMISSION_OBSERVATION' as const,
      })),
    ];
    const tx: TopologyTx = {
      marker: MARKER,
      mapping: 'PartyToParticipant',
      serial: 1,
      partyId: `${body.partyHint}::${key.fingerprint}`,
      synchronizer: body.synchronizer,
      key: {
        spki: Buffer.from(key.spki).toString('base64'),
        keySpec: key.keySpec,
        fingerprint: key.fingerprint,
      },
      threshold:
        body.confirmationThreshold ||
        participants.filter((p) => p.permission === 'PARTICIPANT_PERMISSION_CONFIRMATION').length,
      participants,
    };
    const bytes = new Uint8Array(Buffer.from(JSON.stringify(tx), 'utf8'));
    return c.json({
      partyId: tx.partyId,
      publicKeyFingerprint: key.fingerprint,
      topologyTransactions: [Buffer.from(bytes).toString('base64')],
      multiHash: Buffer.from(topologyMultiHash([bytes])).toString('base64'),
    });
  });

  serve(app, E.allocateExternalParty, (c, { body }) => {
    requireIdpAdmin(caller(c), body.identityProviderId ?? '');
    if (body.onboardingTransactions.length === 0) throw err.missingField('onboarding_transactions');
    const raw = body.onboardingTransactions.map((t) => new Uint8Array(Buffer.from(t.transaction, 'base64')));
    const decoded = raw.map(decodeTopology);
    const mapping = decoded.find((t) => t.mapping === 'PartyToParticipant');
    if (!mapping) throw err.invalidArgument('no PartyToParticipant onboarding transaction');
    if (mapping.synchronizer !== body.synchronizer) {
      throw err.invalidArgument(`the onboarding transactions are for synchronizer ${mapping.synchronizer}`);
    }
    const key = parsePublicKey(
      'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
      Buffer.from(mapping.key.spki, 'base64'),
      mapping.key.keySpec,
    );
    const multi = body.multiHashSignatures ?? [];
    let ok = false;
    if (multi.length > 0) {
      const hash = topologyMultiHash(raw);
      ok = multi.some((s) => s.signedBy === key.fingerprint && checkSignature(key, s, hash) === undefined);
      if (!ok) throw invalidSignature(`no valid signature of ${key.fingerprint} over the multi-hash`);
    } else {
      ok = body.onboardingTransactions.every((t, i) =>
        (t.signatures ?? []).some(
          (s) =>
            s.signedBy === key.fingerprint &&
            checkSignature(key, s, topologyTransactionHash(raw[i]!)) === undefined,
        ),
      );
      if (!ok) throw invalidSignature(`missing signature of ${key.fingerprint}`);
    }
    const existing = state.parties.get(mapping.partyId);
    if (existing?.synchronizers.has(body.synchronizer)) throw err.externalPartyExists(mapping.partyId);
    state.registerExternalParty(
      mapping.partyId,
      key,
      body.synchronizer,
      mapping.participants.map((p) => ({
        partyId: mapping.partyId,
        participantId: p.participantId,
        permission: p.permission,
      })),
    );
    if (body.userId) state.users.grant(body.userId, [{ kind: 'CanActAs', party: mapping.partyId }]);
    return c.json({ partyId: mapping.partyId });
  });
}

function decodeTopology(bytes: Uint8Array): TopologyTx {
  try {
    const tx = JSON.parse(Buffer.from(bytes).toString('utf8')) as TopologyTx;
    if (tx.marker === MARKER && typeof tx.partyId === 'string' && tx.key?.spki) return tx;
  } catch {
    // fall through
  }
  throw new SandboxError(
    'INVALID_ARGUMENT',
    8,
    'The submitted request has invalid arguments: invalid onboarding topology transaction',
  );
}
