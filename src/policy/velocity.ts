// The velocity the approval policy asks for: a party's submissions inside a window that committed or are under
// way (not rejected or expired), counted, and per instrument their outflows summed exactly. Read page by page,
// newest first, stopping at the window's start; where the submissions are kept is the caller's (the submission
// store's index).
import { instrumentKey } from '@quill/canton/token';
import { sumDecimals } from './decimal.ts';
import type { VelocityLookup } from './evaluate.ts';
import type { InstrumentAmount } from './facts.ts';

/** What velocity needs of one submission. */
export interface VelocityItem {
  createdAt: string;
  status: string;
  /** What the submission sent, per instrument, as the policy read it. */
  outflows?: readonly InstrumentAmount[] | undefined;
}

/** A party's submissions, newest first, a page at a time (`cursor` from the page before). */
export type SubmissionPages = (
  party: string,
  cursor: string | undefined,
) => Promise<{ items: readonly VelocityItem[]; nextCursor: string | null }>;

export function velocityLookup(pages: SubmissionPages, now: () => number = Date.now): VelocityLookup {
  return async (party, windowSeconds) => {
    const since = now() - windowSeconds * 1000;
    let count = 0;
    const instruments: Record<string, { count: number; amount: string }> = {};
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res = await pages(party, cursor);
      let older = false;
      for (const r of res.items) {
        if (Date.parse(r.createdAt) < since) {
          older = true;
          break;
        }
        if (r.status === 'rejected' || r.status === 'expired') continue;
        count++;
        for (const o of r.outflows ?? []) {
          const k = instrumentKey(o.instrument);
          const sofar = instruments[k] ?? { count: 0, amount: '0' };
          instruments[k] = { count: sofar.count + 1, amount: sumDecimals([sofar.amount, o.amount]) };
        }
      }
      if (older || !res.nextCursor) break;
      cursor = res.nextCursor;
    }
    return { count, instruments };
  };
}
