// The typed client of the wallet API: openapi-fetch over the types `npm run client:generate` writes from the
// OpenAPI document (schema.d.ts). Every path, parameter, body and answer is checked by the compiler; the runtime is
// openapi-fetch's small fetch wrapper and nothing of Quill's.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.d.ts';

export type { components, operations, paths } from './schema.d.ts';

type Schemas = components['schemas'];
export type Submission = Schemas['Submission'];
export type SubmissionRequest = Schemas['SubmissionRequest'];
export type ErrorBody = Schemas['Error'];
export type QuillClient = Client<paths>;

/**
 * A client for the wallet at `baseUrl` (e.g. http://127.0.0.1:8080) that sends `token` as its bearer token.
 * Calls answer `{ data, error, response }`: `error` is the `{error: {code, message}}` body of a 4xx/5xx. Other
 * headers (an Idempotency-Key) go with each call: `{ params: { header: { 'idempotency-key': k } } }`.
 */
export function createQuillClient(
  baseUrl: string,
  token: string,
  options: Omit<ClientOptions, 'baseUrl' | 'headers'> = {},
): QuillClient {
  return createClient<paths>({
    ...options,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${token}` },
  });
}
