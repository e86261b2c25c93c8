/**
 * The list form of the update stream: scans offsets (ascending or descending) without copying the log,
 * renders what the format makes visible, interleaves OffsetCheckpoints (after `checkpointEvery` offsets
 * without a visible update, and when the scan reaches the ledger end past the last visible update), honours
 * `limit` and the server list maximum (more → 413), and for open-ended ranges waits for new updates until
 * `idleMs` pass without a new element.
 */
import { err } from '../errors.ts';
import { isoFromMicros } from '../lfjson.ts';
import type { SandboxState, UpdateRecord } from '../state/index.ts';
import type { Services } from './http.ts';

export interface StreamRequest {
  begin: number;
  end?: number;
  descending: boolean;
  limit?: number;
  idleMs: number;
}

/** What a stream shows of one update (undefined: nothing visible). */
export type Renderer = (record: UpdateRecord) => unknown;

export async function streamUpdates(
  services: Services,
  render: Renderer,
  req: StreamRequest,
): Promise<unknown[]> {
  const { state, options } = services;
  const max = options.maxListElements;
  const take = req.limit !== undefined && req.limit > 0 && req.limit <= max ? req.limit : max + 1;
  const out: unknown[] = [];
  if (req.descending) {
    for (let o = req.end ?? 0; o > req.begin && out.length < take; o--) {
      const rec = state.log.at(o);
      const u = rec ? render(rec) : undefined;
      if (u) out.push(u);
    }
  } else {
    let next = req.begin + 1;
    let lastVisible = req.begin;
    let sinceCheckpoint = 0;
    const scan = (limitOffset: number): boolean => {
      for (; next <= limitOffset && out.length < take; next++) {
        const rec = state.log.at(next);
        const u = rec ? render(rec) : undefined;
        if (u) {
          out.push(u);
          lastVisible = next;
          sinceCheckpoint = 0;
        } else if (++sinceCheckpoint >= options.checkpointEvery) {
          out.push(checkpoint(state, next));
          lastVisible = next;
          sinceCheckpoint = 0;
        }
      }
      const scanned = next - 1;
      if (scanned === state.log.end && scanned > lastVisible && out.length < take) {
        out.push(checkpoint(state, scanned));
        lastVisible = scanned;
        sinceCheckpoint = 0;
      }
      return out.length >= take;
    };
    const full = scan(req.end ?? state.log.end);
    if (!full && req.end === undefined) await waitForMore(services, scan, () => out.length, req.idleMs);
  }
  if (out.length > max) throw err.listTooLarge(max);
  return out;
}

/** Keeps scanning new updates until the list is full or `idleMs` pass without a new element. */
function waitForMore(
  { state }: Services,
  scan: (to: number) => boolean,
  count: () => number,
  idleMs: number,
): Promise<void> {
  return new Promise((resolve) => {
    let timer = setTimeout(done, Math.max(0, idleMs));
    let finished = false;
    // Scan after the committing turn is over (contracts are activated after the append).
    const unsubscribe = state.log.onAppend(() =>
      queueMicrotask(() => {
        if (finished) return;
        const before = count();
        if (scan(state.log.end)) return done();
        if (count() > before) {
          clearTimeout(timer);
          timer = setTimeout(done, Math.max(0, idleMs));
        }
      }),
    );
    function done() {
      finished = true;
      clearTimeout(timer);
      unsubscribe();
      resolve();
    }
  });
}

function checkpoint(state: SandboxState, offset: number) {
  const now = isoFromMicros(state.nowMicros());
  return {
    OffsetCheckpoint: {
      value: {
        offset,
        synchronizerTimes: state.synchronizers.map((s) => ({ synchronizerId: s.id, recordTime: now })),
      },
    },
  };
}
