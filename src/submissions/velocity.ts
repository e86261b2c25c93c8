// The velocity the approval policy asks for: a party's submissions inside a window that committed or are under
// way (not rejected or expired), counted and their policy amounts summed exactly. Read from the party's index,
// newest first, stopping at the window's start.
import { sumDecimals, type VelocityLookup } from '../policy/index.ts';
import type { SubmissionStore } from './store.ts';

export function storeVelocity(store: SubmissionStore, now: () => number = Date.now): VelocityLookup {
  return async (party, windowSeconds) => {
    const since = now() - windowSeconds * 1000;
    let count = 0;
    const amounts: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res = await store.list({ party, limit: 200, ...(cursor ? { cursor } : {}) });
      let older = false;
      for (const r of res.items) {
        if (Date.parse(r.createdAt) < since) {
          older = true;
          break;
        }
        if (r.status === 'rejected' || r.status === 'expired') continue;
        count++;
        if (r.amount) amounts.push(r.amount);
      }
      if (older || !res.nextCursor) break;
      cursor = res.nextCursor;
    }
    return { count, amount: sumDecimals(amounts) };
  };
}
