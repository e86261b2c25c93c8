// What an operator looks at beyond one record: the deployment's moving parts (GET /wallet/v1/operations, an
// unscoped admin), one box that finds any id (GET /wallet/v1/search, any reader, within its party scope), and the
// console's sign-in links minted for a new operator (POST /wallet/v1/console/links, an unscoped admin; audited).
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { ROLES } from '../../auth/index.ts';
import { type AppDeps, type AppEnv, need, visible } from '../context.ts';
import { ApiError, errorResponses } from '../errors.ts';
import { json, security, unscopedAdmin } from './shared.ts';

const Lease = z.object({ holder: z.string(), ttlMs: z.number().int() }).nullable();
const Operations = z
  .object({
    watcher: z.object({
      checkpoint: z.number().int().nullable().openapi({ description: 'the last offset the watcher indexed' }),
      ledgerEnd: z
        .number()
        .int()
        .nullable()
        .openapi({ description: "the ledger's end now (null: it did not answer within 2 s)" }),
      lease: Lease.openapi({ description: "the watcher's lease: who holds it (null: nobody)" }),
    }),
    leader: Lease.openapi({ description: 'the lease of the process running once-per-deployment work' }),
    queue: z.object({
      waiting: z.number().int(),
      delayed: z.number().int(),
      oldestWaitingAt: z.string().nullable(),
      oldestDelayedAt: z.string().nullable(),
    }),
    webhooks: z.array(
      z.object({
        id: z.string(),
        url: z.string(),
        dead: z.number().int().openapi({ description: 'dead-lettered deliveries' }),
      }),
    ),
  })
  .openapi('Operations');

const operations = createRoute({
  method: 'get',
  path: '/wallet/v1/operations',
  operationId: 'getOperations',
  tags: ['operations'],
  summary:
    "The deployment's moving parts (unscoped admin): watcher checkpoint vs ledger end, leases, the queue's " +
    'oldest jobs, webhook dead letters',
  security,
  responses: { 200: json(Operations, 'The state'), ...errorResponses(401, 403, 503) },
});

export const SEARCH_KINDS = [
  'submission',
  'command',
  'update',
  'transaction',
  'party',
  'key',
  'contract',
  'hash',
] as const;

const Match = z
  .object({
    kind: z.enum(SEARCH_KINDS).openapi({ description: 'what the text is' }),
    id: z.string().openapi({ description: 'the text as found' }),
    submission: z.string().optional().openapi({ description: 'the submission it belongs to' }),
    party: z.string().optional().openapi({ description: 'the party it belongs to' }),
    updateId: z.string().optional(),
  })
  .openapi('SearchMatch');

const search = createRoute({
  method: 'get',
  path: '/wallet/v1/search',
  operationId: 'search',
  tags: ['operations'],
  summary:
    'Finds what an id names: a submission id, command id, update id, party, key fingerprint, contract id (an ' +
    'active holding) or prepared-transaction hash, within the token’s party scope',
  security,
  request: { query: z.object({ q: z.string().trim().min(1).max(600) }) },
  responses: {
    200: json(z.object({ matches: z.array(Match) }), 'What the text names (empty: nothing)'),
    ...errorResponses(400, 401, 403),
  },
});

const NewLink = z
  .object({
    subject: z
      .string()
      .trim()
      .regex(/^[\w.@:+-]{1,128}$/, 'letters, digits and . @ : + - _ only')
      .openapi({
        description: 'who the operator is in the audit (an approver’s name, e.g. alice@example.com)',
      }),
    role: z.enum(ROLES),
    party: z.string().trim().min(1).max(512).optional(),
    ttlSeconds: z
      .number()
      .int()
      .min(60)
      .max(24 * 3600),
  })
  .strict()
  .openapi('NewConsoleLink');

const mintLink = createRoute({
  method: 'post',
  path: '/wallet/v1/console/links',
  operationId: 'createConsoleLink',
  tags: ['operations'],
  summary: 'Mints a one-time console sign-in link for an operator (unscoped admin; audited)',
  security,
  request: { body: { required: true, content: { 'application/json': { schema: NewLink } } } },
  responses: {
    201: json(
      z.object({ token: z.string(), expiresAt: z.string() }),
      'The link’s token (`/console/signin?t=<token>`): shown once',
    ),
    ...errorResponses(400, 401, 403, 503),
  },
});

const HEX64 = /^[0-9a-f]{64}$/i;

export function operationsRoutes(deps: AppDeps) {
  return new OpenAPIHono<AppEnv>()
    .openapi(operations, async (c) => {
      unscopedAdmin(c, "the deployment's state needs an admin token without party scope");
      if (!deps.operations)
        throw new ApiError(503, 'UNAVAILABLE', "the deployment's state is not available in this process");
      return c.json(await deps.operations(), 200);
    })
    .openapi(search, async (c) => {
      const who = need(c, 'read');
      const q = c.req.valid('query').q;
      const mine = (party: string) => who.party === undefined || who.party === party;
      const matches: z.infer<typeof Match>[] = [];
      const [byId, byCommand, byUpdate, indexed, parties] = await Promise.all([
        q.length <= 100 ? deps.store.getRecord(q) : undefined,
        deps.store.byCommandId(q),
        deps.store.byUpdateId(q),
        deps.history?.byUpdateId?.(q),
        deps.parties?.list().catch(() => []) ?? [],
      ]);
      const rec = visible(who, byId);
      if (rec) matches.push({ kind: 'submission', id: q, submission: rec.id, party: rec.party });
      const cmd = visible(who, byCommand);
      if (cmd) matches.push({ kind: 'command', id: q, submission: cmd.id, party: cmd.party });
      const upd = visible(who, byUpdate);
      if (upd) matches.push({ kind: 'update', id: q, submission: upd.id, party: upd.party, updateId: q });
      else if (indexed) {
        // A transaction Quill did not submit (an incoming transfer): the watcher indexed it for these parties.
        const party = indexed.parties.find(mine);
        if (party) matches.push({ kind: 'transaction', id: q, party, updateId: q });
      }
      for (const p of parties) {
        if (!mine(p.partyId)) continue;
        if (p.partyId === q) matches.push({ kind: 'party', id: q, party: q });
        if (p.keyFingerprint === q && allowsKeys(who.role))
          matches.push({ kind: 'key', id: q, party: p.partyId });
      }
      if (allowsKeys(who.role) && who.party === undefined && !matches.some((m) => m.kind === 'key')) {
        const key = await deps.keys?.get(q).catch(() => undefined);
        if (key) matches.push({ kind: 'key', id: q });
      }
      if (HEX64.test(q) && deps.history?.byHash) {
        // The hash that was signed: the watcher indexes committed transactions by it.
        const tx = await deps.history.byHash(q);
        const sub = tx ? visible(who, await deps.store.byUpdateId(tx.updateId)) : undefined;
        const party = sub?.party ?? tx?.parties.find(mine);
        if (tx && party)
          matches.push({
            kind: 'hash',
            id: q,
            party,
            updateId: tx.updateId,
            ...(sub ? { submission: sub.id } : {}),
          });
      }
      if (/^00[0-9a-f]{64,}$/i.test(q) && deps.history) {
        // A contract id: an active holding of one of the wallet's parties (the watcher's index).
        for (const p of parties) {
          if (!mine(p.partyId)) continue;
          const holdings = await deps.history.holdings(p.partyId);
          if (holdings.some((h) => h.contractId === q)) {
            matches.push({ kind: 'contract', id: q, party: p.partyId });
            break;
          }
        }
      }
      return c.json({ matches }, 200);
    })
    .openapi(mintLink, async (c) => {
      const who = unscopedAdmin(c, 'sign-in links need an admin token without party scope');
      if (!deps.mintConsoleLink)
        throw new ApiError(503, 'UNAVAILABLE', 'console sign-in links are off (no AUTH_JWT_SECRET)');
      const body = c.req.valid('json');
      const token = await deps.mintConsoleLink(body);
      const expiresAt = new Date(Date.now() + body.ttlSeconds * 1000).toISOString();
      // Who let whom in, as what, until when; never the token.
      await deps.audit.append({
        kind: 'console.link',
        at: new Date().toISOString(),
        actor: who.subject,
        subject: body.subject,
        role: body.role,
        ...(body.party ? { party: body.party } : {}),
        expiresAt,
      });
      return c.json({ token, expiresAt }, 201);
    });
}

const allowsKeys = (role: string) => role === 'admin';
