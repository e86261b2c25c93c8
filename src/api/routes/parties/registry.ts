// The party registry (admin role): onboarding (one key, or M of N keys with a cold namespace key and other
// hosts), a party's keys and hosts, and a change of its keys. A party-scoped admin sees and changes only its
// party; only an unscoped admin onboards one.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { echo } from '@quill/canton/errors';
import { type AppDeps, type AppEnv, need } from '../../context.ts';
import { ApiError, errorResponses } from '../../errors.ts';
import {
  KeyChangeBody,
  KeyChangeView,
  NewPartyBody,
  PartyParam,
  PartyView,
  PreparedPartyView,
} from '../../party-schemas.ts';
import { keyAdmin } from '../keys.ts';
import { creatingAdmin, json, security } from '../shared.ts';

const body = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { 'application/json': { schema } } },
});

const onboard = createRoute({
  method: 'post',
  path: '/wallet/v1/parties',
  operationId: 'createParty',
  tags: ['parties'],
  summary: 'Onboard an external party: one key, or M of N keys with a cold namespace key (admin)',
  security,
  request: body(NewPartyBody),
  responses: {
    201: json(PartyView, 'The onboarded party'),
    ...errorResponses(400, 401, 403, 404, 409, 422, 503, 504),
  },
});
const prepare = createRoute({
  method: 'post',
  path: '/wallet/v1/parties/prepare',
  operationId: 'prepareParty',
  tags: ['parties'],
  summary: 'The topology an M-of-N onboarding sends and the hashes its keys sign; nothing is sent (admin)',
  security,
  request: body(NewPartyBody),
  responses: {
    200: json(PreparedPartyView, 'The prepared party'),
    ...errorResponses(400, 401, 403, 422, 503),
  },
});
const listParties = createRoute({
  method: 'get',
  path: '/wallet/v1/parties',
  operationId: 'listParties',
  tags: ['parties'],
  summary: 'Parties this wallet holds keys for (admin)',
  security,
  responses: {
    200: json(z.object({ items: z.array(PartyView) }), 'Parties'),
    ...errorResponses(401, 403, 503),
  },
});
const getParty = createRoute({
  method: 'get',
  path: '/wallet/v1/parties/{party}',
  operationId: 'getParty',
  tags: ['parties'],
  summary: 'A party’s signing keys, threshold and hosts (admin)',
  security,
  request: { params: PartyParam },
  responses: { 200: json(PartyView, 'The party'), ...errorResponses(401, 403, 404, 503) },
});
const changeKeys = createRoute({
  method: 'post',
  path: '/wallet/v1/parties/{party}/keys',
  operationId: 'changePartyKeys',
  tags: ['parties'],
  summary: 'Add or remove signing keys, or change the threshold, through the participant’s admin API (admin)',
  security,
  request: { params: PartyParam, ...body(KeyChangeBody) },
  responses: {
    200: json(KeyChangeView, 'The party as changed, or the prepared change'),
    ...errorResponses(400, 401, 403, 404, 409, 422, 502, 503, 504),
  },
});

export function partyRegistryRoutes(deps: AppDeps) {
  const parties = () => {
    if (!deps.parties)
      throw new ApiError(503, 'PARTIES_UNAVAILABLE', 'party onboarding is not available here');
    return deps.parties;
  };
  /** The party, within the caller's scope (another party's is 404, as if it did not exist). */
  const scopedParty = async (c: Parameters<typeof need>[0], partyId: string) => {
    const who = need(c, 'admin');
    const party = who.party === undefined || who.party === partyId ? await parties().get(partyId) : undefined;
    if (!party) throw new ApiError(404, 'NOT_FOUND', `no party ${echo(partyId)}`);
    return { who, party };
  };
  return new OpenAPIHono<AppEnv>()
    .openapi(onboard, async (c) => {
      const who = creatingAdmin(c);
      const req = c.req.valid('json');
      if (req.keyFingerprint !== undefined) {
        const key = await keyAdmin(deps).get(req.keyFingerprint);
        if (!key) throw new ApiError(404, 'NOT_FOUND', `no key ${echo(req.keyFingerprint)}`);
        if (key.status !== 'active')
          throw new ApiError(422, 'KEY_DISABLED', `key ${echo(req.keyFingerprint)} is disabled`);
      }
      const party = await parties().onboard(req);
      // The keys signed the party's topology: in the chain right after the ledger allocated it.
      await deps.audit.append({
        kind: 'party.onboard',
        at: new Date().toISOString(),
        actor: who.subject,
        party: party.partyId,
        keyFingerprint: party.keyFingerprint,
        synchronizerId: party.synchronizerId,
        ...(party.layout === 'separate'
          ? {
              signingKeys: party.signingKeys.map((k) => k.fingerprint).join(','),
              threshold: String(party.threshold),
              hosts: party.hosts.map((h) => `${h.participantUid}:${h.permission}`).join(','),
            }
          : {}),
      });
      return c.json(party, 201);
    })
    .openapi(prepare, async (c) => {
      creatingAdmin(c);
      return c.json(await parties().prepare(c.req.valid('json')), 200);
    })
    .openapi(listParties, async (c) => {
      const who = need(c, 'admin');
      const all = await parties().list();
      return c.json(
        { items: who.party === undefined ? all : all.filter((p) => p.partyId === who.party) },
        200,
      );
    })
    .openapi(getParty, async (c) => {
      const { party } = await scopedParty(c, c.req.valid('param').party);
      return c.json(party, 200);
    })
    .openapi(changeKeys, async (c) => {
      const { who, party } = await scopedParty(c, c.req.valid('param').party);
      const change = c.req.valid('json');
      const { hash, signedBy, ...result } = await parties().changeKeys(party.partyId, change);
      if (result.party && hash) {
        // Each topology change, who signed it and what it did: after the participant made it effective.
        await deps.audit.append({
          kind: 'party.keys',
          at: new Date().toISOString(),
          actor: who.subject,
          party: party.partyId,
          serial: String(result.party.serial),
          hash,
          signedBy: (signedBy ?? []).join(','),
          added: result.added.join(','),
          removed: result.removed.join(','),
          threshold: String(result.party.threshold),
        });
      }
      return c.json(result, 200);
    });
}
