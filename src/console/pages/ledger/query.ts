// Query strings and API answers for the ledger forms: links and calls leave empty fields out; a 4xx the API
// gives (a bad offset, an unknown id) is shown beside the form.
import { type Answer, answer, type Ok } from '../../client.ts';
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
  if (isLate(res)) return { error: LEDGER_LATE };
  if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403)
    return { error: apiMessage(res) };
  return { ok: must(res, what) };
}

/** How long a ledger page waits for the ledger before saying it is not answering (the ledger client waits 30 s). */
export const LEDGER_TIME_BOX_MS = 5000;

export const LEDGER_LATE = `Ledger not answering: no answer within ${LEDGER_TIME_BOX_MS / 1000} s. Try again in a moment; the overview shows whether the ledger is ready.`;

/** The answer the page gives when the ledger did not answer within the time box. */
export type Late = { status: 504; body: { error: { code: 'LEDGER_NOT_ANSWERING'; message: string } } };

/**
 * The API's answer to a ledger read, or `Late` after LEDGER_TIME_BOX_MS: the page shows "ledger not answering"
 * beside its form instead of hanging for the ledger client's whole timeout (the call itself runs on and is
 * dropped).
 */
export async function ledgerAnswer<R extends { status: number; text(): Promise<string> }>(
  call: Promise<R>,
): Promise<Answer<R> | Late> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Late>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: 504, body: { error: { code: 'LEDGER_NOT_ANSWERING', message: LEDGER_LATE } } }),
      LEDGER_TIME_BOX_MS,
    );
  });
  const read = answer(call);
  read.catch(() => {}); // a late failure has no page left to go to
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the answer is the time box's. */
export const isLate = (res: { status: number }): res is Late => res.status === 504;
