// The API's one error shape: every 4xx/5xx body is { error: { code, message } }.
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { QuillError } from '../errors.ts';

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'HASH_MISMATCH' }),
      message: z.string().openapi({ example: 'preparedTransactionHash does not match the recomputed hash' }),
    }),
  })
  .openapi('Error');
export type ErrorBody = z.infer<typeof ErrorBody>;

/** An error the API answers with its own status and code. */
export class ApiError extends QuillError {
  override readonly name = 'ApiError';
  constructor(
    readonly status: ContentfulStatusCode,
    code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

export function errorJson(c: Context, status: ContentfulStatusCode, code: string, message: string) {
  return c.json({ error: { code, message } } satisfies ErrorBody, status);
}

const json = { 'application/json': { schema: ErrorBody } };

/** OpenAPI response entries for the errors a route may answer with. */
export function errorResponses(...statuses: number[]) {
  const text: Record<number, string> = {
    400: 'Malformed request: the body, a parameter or the prepared transaction is invalid',
    401: 'Missing or invalid bearer token',
    403: 'The token lacks the role or party scope for this',
    404: 'Not found',
    409: 'Conflicts with an existing resource',
    413: 'Too many items',
    422: 'Well-formed but refused by policy (hash mismatch, unknown party, disabled key, expired, …)',
    503: 'A dependency (Redis, the ledger) is unavailable',
  };
  return Object.fromEntries(
    statuses.map((s) => [s, { description: text[s] ?? 'Error', content: json }]),
  ) as Record<number, { description: string; content: typeof json }>;
}
