// Key and party administration (admin role): /wallet/v1/keys and /wallet/v1/parties. A party-scoped admin
// sees and disables only its party's key and sees only its party; only an unscoped admin creates either.
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { echo } from '@quill/canton/errors';
import type { Context } from 'hono';
import type { Principal } from '../../auth/index.ts';
import { isFingerprint } from '../../signing/index.ts';
import { type AppDeps, type AppEnv, need } from '../context.ts';
import { ApiError, errorResponses } from '../errors.ts';
import {
  FingerprintParam,
  KeyFileProblemView,
  KeyView,
  NewKeyBody,
  NewPartyBody,
  PartyView,
} from '../schemas.ts';

const security = [{ bearer: [] }];
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

const AuditEntryView = z
  .object({
    id: z.string().openapi({ description: 'the stream entry id (cursor for `after`)' }),
    fields: z.array(z.tuple([z.string(), z.string()])).openapi({
      description:
        'the entry as stored, in order, ending with chainPrev and chainHash (see `quill audit verify`)',
    }),
  })
  .openapi('AuditEntry');

const auditRoute = createRoute({
  method: 'get',
  path: '/wallet/v1/audit',
  tags: ['audit'],
  summary:
    'The tamper-evident audit chain (admin): signatures, approval decisions, policy changes, key generation and disable',
  security,
  request: {
    query: z.object({
      after: z
        .string()
        .regex(/^\d{1,20}-\d{1,20}$/, 'a stream entry id such as 1732000000000-0')
        .optional(),
      limit: z.coerce.number().int().min(1).max(1000).default(100),
    }),
  },
  responses: {
    200: json(z.object({ items: z.array(AuditEntryView), next: z.string().nullable() }), 'Entries in order'),
    ...errorResponses(400, 401, 403, 503),
  },
});

const createKey = createRoute({
  method: 'post',
  path: '/wallet/v1/keys',
  tags: ['keys'],
  summary: 'Generate a signing key (admin)',
  security,
  request: { body: { required: true, content: { 'application/json': { schema: NewKeyBody } } } },
  responses: { 201: json(KeyView, 'The new key (public view)'), ...errorResponses(400, 401, 403, 503) },
});
const listKeys = createRoute({
  method: 'get',
  path: '/wallet/v1/keys',
  tags: ['keys'],
  summary: 'All keys (admin); key files that fail to open are named in problems, the others still listed',
  security,
  responses: {
    200: json(z.object({ items: z.array(KeyView), problems: z.array(KeyFileProblemView) }), 'Keys'),
    ...errorResponses(401, 403, 503),
  },
});
const getKey = createRoute({
  method: 'get',
  path: '/wallet/v1/keys/{fingerprint}',
  tags: ['keys'],
  summary: 'One key (admin)',
  security,
  request: { params: FingerprintParam },
  responses: { 200: json(KeyView, 'The key'), ...errorResponses(400, 401, 403, 404, 503) },
});
const disableKey = createRoute({
  method: 'post',
  path: '/wallet/v1/keys/{fingerprint}/disable',
  tags: ['keys'],
  summary: 'Disable a key for good: it never signs again (admin)',
  security,
  request: { params: FingerprintParam },
  responses: { 200: json(KeyView, 'The disabled key'), ...errorResponses(400, 401, 403, 404, 503) },
});
const onboard = createRoute({
  method: 'post',
  path: '/wallet/v1/parties',
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
  tags: ['parties'],
  summary: 'Parties this wallet holds keys for (admin)',
  security,
  responses: {
    200: json(z.object({ items: z.array(PartyView) }), 'Parties'),
    ...errorResponses(401, 403, 503),
  },
});

export function adminRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  const keys = () => {
    if (!deps.keys)
      throw new ApiError(503, 'KEYSTORE_UNAVAILABLE', 'the key store is not available in this process');
    return deps.keys;
  };
  const parties = () => {
    if (!deps.parties)
      throw new ApiError(503, 'PARTIES_UNAVAILABLE', 'party onboarding is not available here');
    return deps.parties;
  };
  const fingerprint = (fp: string) => {
    if (!isFingerprint(fp))
      throw new ApiError(400, 'INVALID_FINGERPRINT', 'a fingerprint is 1220 followed by 64 hex digits');
    return fp;
  };

  /** Only an unscoped admin creates keys and parties: a new one is outside any one party's scope. */
  const unscopedAdmin = (c: Context<AppEnv>) => {
    const who = need(c, 'admin');
    if (who.party !== undefined)
      throw new ApiError(403, 'FORBIDDEN', 'a party-scoped token may not create keys or parties');
    return who;
  };
  /** The key a party-scoped token may see (its party's, per the registry); undefined = every key. */
  const scopedKey = async (who: Principal) =>
    who.party === undefined ? undefined : ((await deps.accept.ports.partyKey(who.party)) ?? null);
  /** A key outside the token's party looks like it does not exist (404), so it is not revealed. */
  const visibleKey = async (who: Principal, fp: string) => {
    const mine = await scopedKey(who);
    const key = mine === undefined || mine === fp ? await keys().get(fp) : undefined;
    if (!key) throw new ApiError(404, 'NOT_FOUND', `no key ${echo(fp)}`);
    return key;
  };

  // Key changes live in files or a token, not in Redis: their audit entry follows right after the change.
  const auditKey = (kind: string, who: { subject: string }, key: KeyView) =>
    deps.audit.append({
      kind,
      at: new Date().toISOString(),
      actor: who.subject,
      keyFingerprint: key.fingerprint,
      algorithm: key.algorithm,
      backend: key.backend,
    });
  app.openapi(createKey, async (c) => {
    const who = unscopedAdmin(c);
    const { algorithm, label, backend } = c.req.valid('json');
    const key = await keys().generate(algorithm, label, backend);
    await auditKey('key.generate', who, key);
    return c.json(key, 201);
  });
  app.openapi(listKeys, async (c) => {
    const mine = await scopedKey(need(c, 'admin'));
    const { keys: all, problems } = await keys().survey();
    if (mine === undefined) return c.json({ items: all, problems }, 200);
    // A scoped admin hears only of its own key, healthy or broken.
    const items = all.filter((k) => k.fingerprint === mine);
    return c.json({ items, problems: problems.filter((p) => p.file === `${mine}.json`) }, 200);
  });
  app.openapi(getKey, async (c) => {
    const who = need(c, 'admin');
    const fp = fingerprint(c.req.valid('param').fingerprint);
    return c.json(await visibleKey(who, fp), 200);
  });
  app.openapi(disableKey, async (c) => {
    const who = need(c, 'admin');
    const fp = fingerprint(c.req.valid('param').fingerprint);
    const before = await visibleKey(who, fp);
    const key = await keys().disable(fp);
    if (before.status !== 'disabled') await auditKey('key.disable', who, key);
    return c.json(key, 200);
  });
  app.openapi(onboard, async (c) => {
    unscopedAdmin(c);
    const body = c.req.valid('json');
    const key = await keys().get(body.keyFingerprint);
    if (!key) throw new ApiError(404, 'NOT_FOUND', `no key ${echo(body.keyFingerprint)}`);
    if (key.status !== 'active')
      throw new ApiError(422, 'KEY_DISABLED', `key ${echo(body.keyFingerprint)} is disabled`);
    return c.json(await parties().onboard(body), 201);
  });
  app.openapi(auditRoute, async (c) => {
    const who = need(c, 'admin');
    const { after, limit } = c.req.valid('query');
    const entries = await deps.audit.entries(after ?? '0-0', limit);
    // A party-scoped admin sees its party's entries (the chain is checked whole, by an unscoped one).
    const items =
      who.party === undefined
        ? entries
        : entries.filter((e) => e.fields.some(([k, v]) => k === 'party' && v === who.party));
    return c.json({ items, next: entries.length === limit ? (entries.at(-1)?.id ?? null) : null }, 200);
  });
  app.openapi(listParties, async (c) => {
    const who = need(c, 'admin');
    const all = await parties().list();
    return c.json({ items: who.party === undefined ? all : all.filter((p) => p.partyId === who.party) }, 200);
  });
}
