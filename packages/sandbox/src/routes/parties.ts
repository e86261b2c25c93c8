/**
 * Parties: listing, lookup, local allocation, and external party onboarding with real topology transactions:
 * generate-topology emits the participant's PartyToParticipant bytes (topology/generate.ts), allocate
 * validates and authorizes them like the participant (topology/onboarding.ts, external-party-keys.md §1.7).
 * Each listener answers as its own participant (`Services.participantId`).
 */
import { endpoints as E } from '@quill/canton/ledger';
import { logicalSynchronizerId } from '@quill/canton/transaction';
import { isAdmin, permissionDenied, requireIdpAdmin } from '../auth.ts';
import { err } from '../errors.ts';
import { parsePublicKey } from '../keys.ts';
import type { PartyRecord } from '../state/index.ts';
import { generateTopology } from '../topology/generate.ts';
import { allocateExternalParty } from '../topology/onboarding.ts';
import { type App, type Ctx, caller, type Services, serve } from './http.ts';

const HINT = /^[A-Za-z0-9_-][A-Za-z0-9_ -]{0,184}$/;

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

export function partyRoutes(app: App, { state, participantId }: Services): void {
  const node = participantId ?? state.participantId;
  const visible = (p: PartyRecord) => state.partyVisibleOn(p, node);

  serve(app, E.listParties, (c, { query }) => {
    requireListParties(c);
    const filter = query['filter-party'];
    const list = [...state.parties.values()].filter(
      (p) => visible(p) && (!filter || p.partyId.includes(filter)),
    );
    return c.json({ partyDetails: list.map(partyJson), nextPageToken: '' });
  });

  serve(app, E.participantId, (c) => c.json({ participantId: node }));

  serve(app, E.getParty, (c, { params }) => {
    requireListParties(c);
    const p = state.parties.get(params.party);
    return c.json({ partyDetails: p && visible(p) ? [partyJson(p)] : [] });
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
    if (!state.synchronizers.some((s) => s.id === logicalSynchronizerId(body.synchronizer))) {
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
    return c.json(generateTopology(body, key, node));
  });

  serve(app, E.allocateExternalParty, (c, { body }) => {
    requireIdpAdmin(caller(c), body.identityProviderId ?? '');
    const partyId = allocateExternalParty(state, body, node);
    if (body.userId) state.users.grant(body.userId, [{ kind: 'CanActAs', party: partyId }]);
    return c.json({ partyId });
  });
}
