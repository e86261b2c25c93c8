// Which holdings a transfer spends: the party's unlocked holdings of the instrument from the watcher's index,
// minus those an earlier intent of the party already spends (its record is live, or committed before the index
// caught up), largest first until the amount is covered; then, when configured, dust merged into the change.
import { echo } from '@quill/canton/errors';
import type { InstrumentId } from '@quill/canton/token';
import type { IndexedHolding } from '../history/index.ts';
import { isLocked } from '../history/index.ts';
import { compareDecimal, sumDecimals } from '../policy/index.ts';
import { SubmissionRefused } from '../submissions/index.ts';

export interface SelectOptions {
  maxInputs: number;
  /** Holdings below this are added as extra inputs (merged into the change). */
  mergeDustBelow?: string;
}

export function selectHoldings(
  holdings: readonly IndexedHolding[],
  q: { instrument: InstrumentId; amount: string; spent: ReadonlySet<string>; now: number },
  o: SelectOptions,
): string[] {
  const usable = holdings
    .filter(
      (h) =>
        h.instrument.admin === q.instrument.admin &&
        h.instrument.id === q.instrument.id &&
        !isLocked(h, q.now) &&
        !q.spent.has(h.contractId),
    )
    .sort((a, b) => compareDecimal(b.amount, a.amount) || a.contractId.localeCompare(b.contractId));
  const chosen: IndexedHolding[] = [];
  let total = '0';
  for (const h of usable) {
    if (compareDecimal(total, q.amount) >= 0 || chosen.length === o.maxInputs) break;
    chosen.push(h);
    total = sumDecimals([total, h.amount]);
  }
  if (compareDecimal(total, q.amount) < 0) {
    const available = sumDecimals(usable.map((h) => h.amount));
    const held = compareDecimal(available, q.amount) >= 0;
    throw new SubmissionRefused(
      422,
      'INSUFFICIENT_HOLDINGS',
      held
        ? `${q.amount} ${echo(q.instrument.id)} needs more than INTENT_MAX_INPUTS (${o.maxInputs}) holdings: merge them first`
        : `the party holds ${available} ${echo(q.instrument.id)} (admin ${echo(q.instrument.admin)}) unlocked and not already being spent, less than ${q.amount}`,
    );
  }
  if (o.mergeDustBelow !== undefined) {
    const dust = usable
      .filter((h) => !chosen.includes(h) && compareDecimal(h.amount, o.mergeDustBelow as string) < 0)
      .reverse();
    for (const h of dust) {
      if (chosen.length >= o.maxInputs) break;
      chosen.push(h);
    }
  }
  return chosen.map((h) => h.contractId);
}
