/** Shared plumbing of the sandbox's HTTP layer: context type, body decoding like tapir, error answers. */
import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { Authenticator, Caller } from '../auth.ts';
import { BodyDecodeError, err, SandboxError } from '../errors.ts';
import type { Faults } from '../faults.ts';
import type { SandboxState } from '../state/index.ts';

export interface SandboxOptions {
  /** `http-list-max-elements-limit` (default 200). */
  maxListElements: number;
  /** `http-list-wait-time` for open-ended streams (default 500 ms). */
  listWaitMs: number;
  /** Emit an OffsetCheckpoint after this many offsets were scanned by a stream (default 1000). */
  checkpointEvery: number;
}

export interface Services {
  state: SandboxState;
  auth: Authenticator;
  faults: Faults;
  options: SandboxOptions;
}

export type Env = { Bindings: HttpBindings; Variables: { caller: Caller } };
export type Ctx = Context<Env>;
export type App = Hono<Env>;

/** Reads a JSON body (no Content-Type needed, as the SDK sends it) and decodes it with `schema`. */
export async function readJson<T extends z.ZodType>(c: Ctx, schema: T): Promise<z.output<T>> {
  const text = await c.req.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BodyDecodeError(`Invalid value for: body (expected json value got '${text.slice(0, 20)}...')`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'body';
    throw new BodyDecodeError(`Invalid value for: body (${where}: ${issue?.message ?? 'invalid'})`);
  }
  return parsed.data;
}

export function errorResponse(c: Ctx, e: unknown): Response {
  if (e instanceof SandboxError) {
    return c.json(e.body(), e.status as 400);
  }
  if (e instanceof BodyDecodeError) return c.text(e.message, 400);
  const internal = err.internal();
  return c.json(internal.body(), 500);
}

export function caller(c: Ctx): Caller {
  return c.get('caller');
}

/** Path parameter, percent-decoded (the SDK encodes `::` as `%3A%3A`). */
export function param(c: Ctx, name: string): string {
  const raw = c.req.param(name) ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
