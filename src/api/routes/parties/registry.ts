// The party registry (admin role): POST and GET /wallet/v1/parties. A party-scoped admin sees only its party;
// only an unscoped admin onboards one.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { echo } from '@quill/canton/errors';
import { type AppDeps, type AppEnv, need } from '../../context.ts';
import { ApiError, errorResponses } from '../../errors.ts';
import { NewPartyBody, PartyView } from '../../schemas.ts';
import { keyAdmin } from '../keys.ts';
import { creatingAdmin, json, security } from '../shared.ts';

const onboard = createRoute({
  method: 'post',
  path: '/wallet/v1/parties',
  operationId: 'createParty',
  tags: ['parties'],
  summary: 'Onboard an external party controlled by one of our keys (admin)',
  security,
  request: { body: { required: true, content: { 'application/json': { schema: NewPartyBody } } } },
  responses: {
    201: json(PartyView, 'The onboarded party'),
    ...errorResponses(400, 401, 403, 404, 409, 422, 503),
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

export function partyRegistryRoutes(deps: AppDeps) {
  const parties = () => {
    if (!deps.parties)
      throw new ApiError(503, 'PARTIES_UNAVAILABLE', 'party onboarding is not available here');
    return deps.parties;
  };
  return new OpenAPIHono<AppEnv>()
    .openapi(onboard, async (c) => {
      const who = creatingAdmin(c);
      const body = c.req.valid('json');
      const key = await keyAdmin(deps).get(body.keyFingerprint);
      if (!key) throw new ApiError(404, 'NOT_FOUND', `no key ${echo(body.keyFingerprint)}`);
      if (key.status !== 'active')
        throw new ApiError(422, 'KEY_DISABLED', `key ${echo(body.keyFingerprint)} is disabled`);
      const party = await parties().onboard(body);
      // The key signed the party's topology: in the chain right after the ledger allocated it.
      await deps.audit.append({
        kind: 'party.onboard',
        at: new Date().toISOString(),
        actor: who.subject,
        party: party.partyId,
        keyFingerprint: party.keyFingerprint,
        synchronizerId: party.synchronizerId,
      });
      return c.json(party, 201);
    })
    .openapi(listParties, async (c) => {
      const who = need(c, 'admin');
      const all = await parties().list();
      return c.json(
        { items: who.party === undefined ? all : all.filter((p) => p.partyId === who.party) },
        200,
      );
    });
}
