// Key administration (admin role): /wallet/v1/keys. A party-scoped admin sees and disables only its party's key;
// only an unscoped admin generates one (a new key is outside any one party's scope).
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { echo } from '@quill/canton/errors';
import type { KeyAuditKind } from '../../audit/index.ts';
import type { Principal } from '../../auth/index.ts';
import { isFingerprint } from '../../signing/index.ts';
import { type AppDeps, type AppEnv, need } from '../context.ts';
import { ApiError, errorResponses } from '../errors.ts';
import {
  AdoptKeyBody,
  FingerprintParam,
  KeyBackendView,
  KeyFileProblemView,
  KeyView,
  NewKeyBody,
} from '../schemas.ts';
import { creatingAdmin, json, security } from './shared.ts';

const createKey = createRoute({
  method: 'post',
  path: '/wallet/v1/keys',
  operationId: 'createKey',
  tags: ['keys'],
  summary: 'Generate a signing key (admin)',
  security,
  request: { body: { required: true, content: { 'application/json': { schema: NewKeyBody } } } },
  responses: { 201: json(KeyView, 'The new key (public view)'), ...errorResponses(400, 401, 403, 503) },
});
const adoptKey = createRoute({
  method: 'post',
  path: '/wallet/v1/keys/adopt',
  operationId: 'adoptKey',
  tags: ['keys'],
  summary: 'Take over a key made outside Quill, e.g. in an HSM by its own tools (admin)',
  security,
  request: { body: { required: true, content: { 'application/json': { schema: AdoptKeyBody } } } },
  responses: {
    201: json(KeyView, 'The adopted key (public view); a key already held is answered as it is'),
    ...errorResponses(400, 401, 403, 404, 422, 503),
  },
});
const listKeys = createRoute({
  method: 'get',
  path: '/wallet/v1/keys',
  operationId: 'listKeys',
  tags: ['keys'],
  summary:
    'All keys (admin); key files that fail to open are named in problems, the others still listed; the key ' +
    'backends and what each can do here',
  security,
  responses: {
    200: json(
      z.object({
        items: z.array(KeyView),
        problems: z.array(KeyFileProblemView),
        backends: z.array(KeyBackendView),
      }),
      'Keys',
    ),
    ...errorResponses(401, 403, 503),
  },
});
const getKey = createRoute({
  method: 'get',
  path: '/wallet/v1/keys/{fingerprint}',
  operationId: 'getKey',
  tags: ['keys'],
  summary: 'One key (admin)',
  security,
  request: { params: FingerprintParam },
  responses: { 200: json(KeyView, 'The key'), ...errorResponses(400, 401, 403, 404, 503) },
});
const disableKey = createRoute({
  method: 'post',
  path: '/wallet/v1/keys/{fingerprint}/disable',
  operationId: 'disableKey',
  tags: ['keys'],
  summary: 'Disable a key for good: it never signs again (admin); the reason goes into the audit entry',
  security,
  request: {
    params: FingerprintParam,
    body: {
      required: false,
      content: {
        'application/json': {
          schema: z
            .object({
              reason: z
                .string()
                .trim()
                .min(3)
                .max(500)
                .optional()
                .openapi({ description: 'why (recorded in the `key.disable` audit entry)' }),
            })
            .strict()
            .openapi('DisableKeyRequest'),
        },
      },
    },
  },
  responses: { 200: json(KeyView, 'The disabled key'), ...errorResponses(400, 401, 403, 404, 503) },
});
export function keyRoutes(deps: AppDeps) {
  const keys = () => keyAdmin(deps);
  const fingerprint = (fp: string) => {
    if (!isFingerprint(fp))
      throw new ApiError(400, 'INVALID_FINGERPRINT', 'a fingerprint is 1220 followed by 64 hex digits');
    return fp;
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
  const auditKey = (kind: KeyAuditKind, who: { subject: string }, key: KeyView, reason?: string) =>
    deps.audit.appendKey(kind, who.subject, key, reason);
  return new OpenAPIHono<AppEnv>()
    .openapi(createKey, async (c) => {
      const who = creatingAdmin(c);
      const { algorithm, label, backend } = c.req.valid('json');
      const key = await keys().generate(algorithm, label, backend);
      await auditKey('key.generate', who, key);
      return c.json(key, 201);
    })
    .openapi(adoptKey, async (c) => {
      const who = creatingAdmin(c);
      const { backend, ref, label } = c.req.valid('json');
      const before = new Set((await keys().list()).map((k) => k.fingerprint));
      const key = await keys().adopt(backend, ref, label);
      if (!before.has(key.fingerprint)) await auditKey('key.adopt', who, key);
      return c.json(key, 201);
    })
    .openapi(listKeys, async (c) => {
      const mine = await scopedKey(need(c, 'admin'));
      const { keys: all, problems } = await keys().survey();
      const backends = keys().backends();
      if (mine === undefined) return c.json({ items: all, problems, backends }, 200);
      // A scoped admin hears only of its own key, healthy or broken.
      const items = all.filter((k) => k.fingerprint === mine);
      return c.json({ items, problems: problems.filter((p) => p.file === `${mine}.json`), backends }, 200);
    })
    .openapi(getKey, async (c) => {
      const who = need(c, 'admin');
      const fp = fingerprint(c.req.valid('param').fingerprint);
      return c.json(await visibleKey(who, fp), 200);
    })
    .openapi(disableKey, async (c) => {
      const who = need(c, 'admin');
      const fp = fingerprint(c.req.valid('param').fingerprint);
      const { reason } = (c.req.valid('json') ?? {}) as { reason?: string };
      const before = await visibleKey(who, fp);
      const key = await keys().disable(fp);
      if (before.status !== 'disabled') await auditKey('key.disable', who, key, reason);
      return c.json(key, 200);
    });
}

/** The key store, or 503 where this process has none. */
export function keyAdmin(deps: AppDeps) {
  if (!deps.keys)
    throw new ApiError(503, 'KEYSTORE_UNAVAILABLE', 'the key store is not available in this process');
  return deps.keys;
}
