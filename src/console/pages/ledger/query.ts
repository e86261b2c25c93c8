// Query strings and API answers for the ledger forms: links and calls leave empty fields out; a 4xx the API
// gives (a bad offset, an unknown id) is shown beside the form.
import type { Ok } from '../../client.ts';
import { apiMessage, must } from '../../http.tsx';

export const qs = (o: Record<string, string | undefined>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) if (v) p.set(k, v);
  return p.toString();
};

/** The fields that have a value: an empty form field is not sent (to the API or in a link). */
export function compact<T extends Record<string, string | undefined>>(
  o: T,
): { [K in keyof T]?: string & T[K] } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v)) as { [K in keyof T]?: string & T[K] };
}

export type Outcome<A> = { ok: Ok<A> } | { error: string };

/** 4xx from the API (bad offsets, unknown ids) are shown beside the form; 5xx become the error page. */
export function outcome<A extends { status: number; body: unknown }>(res: A, what: string): Outcome<A> {
  if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403)
    return { error: apiMessage(res) };
  return { ok: must(res, what) };
}
