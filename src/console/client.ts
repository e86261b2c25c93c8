// The console's client of the wallet API: Hono's `hc` over `app.request` (the `testClient` pattern), in
// process, as the signed-in operator. Routes, parameters and answers are typed by the API's route declarations.
import { type ClientResponse, hc } from 'hono/client';
import type { SuccessStatusCode } from 'hono/utils/http-status';
import { AS_PRINCIPAL, type WalletApp } from '../api/index.ts';
import type { Principal } from '../auth/index.ts';

export type Api = ReturnType<typeof hc<WalletApp>>;

/**
 * A client that calls `app` as `principal` (under AS_PRINCIPAL, which no HTTP request can carry: the same role
 * and party checks as a token), forwarding the console request's id so one id follows both access lines.
 */
export function apiClient(app: WalletApp, principal: Principal, requestId: string | undefined): Api {
  const client = hc<WalletApp>('http://localhost', {
    fetch: (input: Parameters<typeof fetch>[0], init?: RequestInit) =>
      app.request(input, init, { [AS_PRINCIPAL]: principal }),
    ...(requestId ? { headers: { 'x-request-id': requestId } } : {}),
  });
  return encodingParams(client);
}

type Call = (...args: unknown[]) => unknown;

/**
 * hc puts path parameters into the URL as given (and drops an empty one, which would name another route): each
 * is encoded here, once for every page, and an empty one is refused (pages check ids before asking).
 */
function encodingParams<T extends object>(node: T): T {
  return new Proxy(node, {
    get(target, key) {
      const child: unknown = Reflect.get(target, key);
      return typeof child === 'function' ? encodingParams(child) : child;
    },
    apply(target, self, args: unknown[]) {
      const [first, ...rest] = args;
      const param = (first as { param?: Record<string, unknown> } | undefined)?.param;
      if (!param) return Reflect.apply(target as Call, self, args);
      const encoded: Record<string, string> = {};
      for (const [k, v] of Object.entries(param)) {
        const text = String(v);
        if (text === '') return Promise.reject(new Error(`the API call's path parameter ${k} is empty`));
        encoded[k] = encodeURIComponent(text);
      }
      return Reflect.apply(target as Call, self, [{ ...(first as object), param: encoded }, ...rest]);
    },
  });
}

/** One answer as its route declares it: the status, and the JSON body that status carries. */
export type Answer<R> = R extends ClientResponse<infer T, infer S, infer _F> ? { status: S; body: T } : never;

/** The body of a 2xx answer. */
export type Ok<A> = A extends { status: SuccessStatusCode; body: infer B } ? B : never;

/**
 * Waits for a call and reads its body once. Every API answer is JSON (errors are ErrorBody); a body that is not
 * is reported as an INVALID_RESPONSE error, as the API would never send one.
 */
export async function answer<R extends { status: number; text(): Promise<string> }>(
  call: Promise<R>,
): Promise<Answer<R>> {
  const res = await call;
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = { error: { code: 'INVALID_RESPONSE', message: text.slice(0, 200) } };
  }
  // The route's type pairs each status with its body; the values are what the route sent.
  return { status: res.status, body } as Answer<R>;
}
