// What several route modules declare or check the same way: bearer security, JSON response entries, and the
// rule that only an unscoped admin creates keys and parties (and changes the policy).
import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Principal } from '../../auth/index.ts';
import { type AppEnv, need } from '../context.ts';
import { ApiError } from '../errors.ts';

export const security = [{ bearer: [] }];

/** An OpenAPI response entry whose body is `schema` as JSON. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** An admin without party scope, or 403 FORBIDDEN saying why one is needed. */
export function unscopedAdmin(c: Context<AppEnv>, why: string): Principal {
  const who = need(c, 'admin');
  if (who.party !== undefined) throw new ApiError(403, 'FORBIDDEN', why);
  return who;
}

/** Only an unscoped admin creates keys and parties: a new one is outside any one party's scope. */
export function creatingAdmin(c: Context<AppEnv>): Principal {
  return unscopedAdmin(c, 'a party-scoped token may not create keys or parties');
}
