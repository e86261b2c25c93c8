/**
 * The shape of one ledger endpoint's declaration (`endpoints/<name>.ts`): everything both sides of the wire
 * need to agree on. The client sends through it, the sandbox serves through it, and tests hold both to the spec.
 */
import { z } from 'zod';
import type { Violation } from './rules.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** The `{name}` segments of a path template, e.g. `'user-id'` for `/v2/users/{user-id}/rights`. */
export type PathParam<P extends string> = P extends `${string}{${infer K}}${infer Rest}`
  ? K | PathParam<Rest>
  : never;
export type Params<P extends string> = { readonly [K in PathParam<P>]: string };

/** GET and DELETE carry no body; endpoints without query parameters take none. */
const NoBody = z.undefined();
const NoQuery = z.object({});

export interface Endpoint<
  P extends string = string,
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  readonly method: Method;
  /** The spec's path template, e.g. `/v2/users/{user-id}`. */
  readonly path: P;
  readonly body: B;
  readonly query: Q;
  readonly response: R;
  /**
   * INTERFACE.md's request rule beyond the schema: what is wrong with the request, or undefined. The client
   * refuses before sending; the sandbox answers with the participant's error for the violation.
   */
  readonly rule?: (body: z.output<B>, params: Params<P>, query: z.output<Q>) => Violation | undefined;
  /**
   * The participant applies `rule` only once the command has run, so a violation is answered for a transaction
   * that committed (executeAndWaitForTransaction reads the transaction with the caller's format after the
   * completion: CommandServiceImpl.fetchTransactionFromCompletion). The client still refuses before sending.
   */
  readonly ruleAfterCommit?: true;
  /** Error codes this endpoint may answer besides the ones every endpoint may (auth, decoding, internal). */
  readonly errors: readonly string[];
}

export function endpoint<
  const P extends string,
  R extends z.ZodType,
  B extends z.ZodType = typeof NoBody,
  Q extends z.ZodType = typeof NoQuery,
>(decl: {
  method: Method;
  path: P;
  body?: B;
  query?: Q;
  response: R;
  rule?: (body: z.output<B>, params: Params<P>, query: z.output<Q>) => Violation | undefined;
  ruleAfterCommit?: true;
  errors?: readonly string[];
}): Endpoint<P, B, Q, R> {
  return {
    method: decl.method,
    path: decl.path,
    body: (decl.body ?? NoBody) as B,
    query: (decl.query ?? NoQuery) as Q,
    response: decl.response,
    ...(decl.rule ? { rule: decl.rule } : {}),
    ...(decl.ruleAfterCommit ? { ruleAfterCommit: true } : {}),
    errors: decl.errors ?? [],
  };
}

/** The names of a template's path parameters, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

/** The template with each parameter filled in, percent-encoded; undefined names an empty parameter. */
export function fillPath(path: string, params: Record<string, string>): { path: string; empty?: string } {
  let empty: string | undefined;
  const filled = path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = params[name] ?? '';
    if (value === '' && empty === undefined) empty = name;
    return encodeURIComponent(value);
  });
  return empty === undefined ? { path: filled } : { path: filled, empty };
}
