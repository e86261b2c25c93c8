/**
 * The list form of the update stream: scans offsets (ascending or descending) without copying the log,
 * renders what the format makes visible, honours `limit` and the server list maximum (more → 413), and for
 * open-ended ranges waits for new updates until `idleMs` pass without a new element.
 *
 * OffsetCheckpoints follow the participant (canton 3.5 `IndexServiceImpl.updates`/`checkpointFlow`,
 * `injectCheckpoints`; `InMemoryStateUpdater.updateOffsetCheckpointCacheFlow`): only open-ended streams carry
 * them (`cond = endInclusive.isEmpty`), never bounded ranges. A cache takes the ledger end (and each
 * synchronizer's last record time) every `checkpointIntervalMs`; a stream emits the cached checkpoint once it
 * has passed its offset (before the first later element, or at the end of the range holding it), one that
 * equals the start at a range's beginning, and, 500 ms after the start and after `idleCheckpointTimeoutMs`
 * without elements, one that equals where it stands.
 *
 * The websocket form (`followUpdates`) is the same stream without a limit or an idle timeout: the participant's
 * `Endpoints.websocket` runs the gRPC stream itself (`prepareSingleWsStream`), where `asList` adds
 * `take(limit)` and `idleTimeout`. A bounded range ends after its last element; an open-ended one never ends.
 */
import type { Endpoint } from '@quill/canton/ledger';
import type { z } from 'zod';
import type { Caller } from '../auth.ts';
import { err } from '../errors.ts';
import type { SandboxState, UpdateRecord } from '../state/index.ts';
import type { SandboxOptions, Services } from './http.ts';

/** The offsets a stream covers: (begin, end], or from begin on when `end` is unset. */
export interface StreamRange {
  begin: number;
  end?: number | undefined;
  descending: boolean;
}

export interface StreamRequest extends StreamRange {
  limit?: number | undefined;
  idleMs: number;
}

/** Where a stream's elements go: an array (the list form) or a socket (the websocket form). */
interface Out {
  push(element: unknown): void;
  readonly length: number;
}

/** What a stream shows of one update (undefined: nothing visible). */
export type Renderer = (record: UpdateRecord) => unknown;

/** A stream request, checked and opened: what it shows, which offsets, and each element as the wire carries it. */
export interface OpenStream {
  render: Renderer;
  range: StreamRange;
  wrap: (element: unknown) => unknown;
}

/**
 * A stream served in both of the participant's forms, the POST list (`Endpoints.asList`) and the websocket
 * (`Endpoints.websocket`), which run one service flow: the declaration (body schema and rule), the check made
 * before the rule, and `open`, the checks after it (throwing the participant's error) and the stream itself.
 */
export interface StreamForm<B extends z.ZodType = z.ZodType> {
  endpoint: Endpoint<string, B>;
  precheck?: (body: z.output<B>) => void;
  open: (who: Caller, body: z.output<B>) => OpenStream;
}

/** The streams served as websockets, by path (`GET`, the POST list form's path). */
export type StreamForms = Map<string, StreamForm>;

interface Checkpoint {
  offset: number;
  /** Each synchronizer's last record time (ISO) up to `offset`. */
  times: ReadonlyMap<string, string>;
}

/**
 * The offset checkpoint cache, ticked lazily: at each multiple of `intervalMs` since it was made it holds the
 * ledger as it stood then (the last appended offset and the record times per synchronizer); undefined before the
 * first update.
 */
class CheckpointCache {
  readonly #t0 = Date.now();
  readonly #pending: { at: number; offset: number; synchronizerId: string; recordTime: string }[] = [];
  #current: { offset: number; times: Map<string, string> } | undefined;
  #cached: Checkpoint | undefined;
  #lastTick = 0;

  constructor(
    state: SandboxState,
    private readonly intervalMs: number,
  ) {
    const times = new Map<string, string>();
    for (let o = state.log.end; o > state.log.prunedUpTo && times.size < state.synchronizers.length; o--) {
      const r = state.log.at(o);
      if (r && !times.has(r.synchronizerId)) times.set(r.synchronizerId, r.recordTime);
    }
    if (state.log.end > 0) this.#current = { offset: state.log.end, times };
    state.log.onAppend(() => {
      const r = state.log.at(state.log.end);
      if (!r) return;
      const now = Date.now();
      // Appends before the last tick are folded now, so the list holds one interval's updates even while no
      // open-ended stream fetches (it grew with every update until one did).
      this.#fold(this.#tickStart(this.#tickOf(now)));
      this.#pending.push({ at: now, ...pick(r) });
    });
  }

  fetch(): Checkpoint | undefined {
    const tick = this.#tickOf(Date.now());
    if (tick > this.#lastTick) {
      this.#fold(this.#tickStart(tick));
      this.#lastTick = tick;
      if (this.#current) this.#cached = { offset: this.#current.offset, times: new Map(this.#current.times) };
    }
    return this.#cached;
  }

  #tickOf(now: number): number {
    return Math.floor((now - this.#t0) / Math.max(1, this.intervalMs));
  }

  #tickStart(tick: number): number {
    return this.#t0 + tick * Math.max(1, this.intervalMs);
  }

  /** Moves the pending appends made at or before `at` into the ledger as it stood then. */
  #fold(at: number): void {
    let n = 0;
    for (; n < this.#pending.length && this.#pending[n]!.at <= at; n++) {
      const p = this.#pending[n]!;
      this.#current ??= { offset: 0, times: new Map() };
      this.#current.offset = p.offset;
      this.#current.times.set(p.synchronizerId, p.recordTime);
    }
    if (n > 0) this.#pending.splice(0, n);
  }
}

function pick(r: UpdateRecord) {
  return { offset: r.offset, synchronizerId: r.synchronizerId, recordTime: r.recordTime };
}

const caches = new WeakMap<SandboxState, CheckpointCache>();

function cacheOf(state: SandboxState, options: SandboxOptions): CheckpointCache {
  let c = caches.get(state);
  if (!c) {
    c = new CheckpointCache(state, options.checkpointIntervalMs);
    caches.set(state, c);
  }
  return c;
}

export async function streamUpdates(
  services: Services,
  render: Renderer,
  req: StreamRequest,
): Promise<unknown[]> {
  const { options } = services;
  const max = options.maxListElements;
  // Endpoints.asList: take(min(limit, max + 1)); a limit ≤ 0 takes nothing.
  const take = Math.min(req.limit ?? max + 1, max + 1);
  const out: unknown[] = [];
  if (take <= 0) return out;
  await run(services, render, req, out, take, req.idleMs);
  if (out.length > max) throw err.listTooLarge(max);
  return out;
}

/**
 * The websocket form: every element of the range to `emit`, as it comes. Resolves after the last element of a
 * bounded range; an open-ended one goes on (checkpoints included) until `signal` aborts.
 */
export function followUpdates(
  services: Services,
  render: Renderer,
  range: StreamRange,
  emit: (element: unknown) => void,
  signal: AbortSignal,
): Promise<void> {
  let count = 0;
  const out: Out = {
    push(element) {
      count++;
      emit(element);
    },
    get length() {
      return count;
    },
  };
  return run(services, render, range, out, Number.POSITIVE_INFINITY, undefined, signal);
}

function run(
  services: Services,
  render: Renderer,
  req: StreamRange,
  out: Out,
  take: number,
  idleMs: number | undefined,
  signal?: AbortSignal,
): Promise<void> {
  const { state, options } = services;
  if (req.descending) {
    for (let o = req.end ?? 0; o > req.begin && out.length < take; o--) {
      const rec = state.log.at(o);
      const u = rec ? render(rec) : undefined;
      if (u) out.push(u);
    }
  } else if (req.end !== undefined) {
    for (let o = req.begin + 1; o <= req.end && out.length < take; o++) {
      const rec = state.log.at(o);
      const u = rec ? render(rec) : undefined;
      if (u) out.push(u);
    }
  } else {
    return tail(services, cacheOf(state, options), render, req.begin, take, idleMs, out, signal);
  }
  return Promise.resolve();
}

/**
 * An open-ended stream from `begin`: ranges up to the ledger end as it moves, with checkpoints. It ends after
 * `idleMs` without an element (never when undefined), once `take` elements are out, or when `signal` aborts.
 */
function tail(
  { state, options }: Services,
  cache: CheckpointCache,
  render: Renderer,
  begin: number,
  take: number,
  idleMs: number | undefined,
  out: Out,
  signal?: AbortSignal,
): Promise<void> {
  let next = begin + 1;
  let relevant: Checkpoint | undefined;
  let streamed: Checkpoint | undefined;
  let processed: { offset: number; rangeEnd: boolean } | undefined;
  const full = () => out.length >= take;
  const emit = (c: Checkpoint) => {
    out.push(checkpoint(c));
    streamed = c;
  };
  /** One range of the dispatcher: (next - 1, to]. */
  const range = (to: number) => {
    if (next > to || full()) return;
    const fetched = cache.fetch();
    if (
      fetched &&
      fetched !== streamed &&
      fetched.offset === next - 1 &&
      (processed === undefined || fetched.offset >= processed.offset)
    )
      emit(fetched);
    relevant = fetched && fetched.offset >= next ? fetched : undefined;
    processed = { offset: next, rangeEnd: false };
    for (; next <= to && !full(); next++) {
      const rec = state.log.at(next);
      const u = rec ? render(rec) : undefined;
      if (!u) continue;
      if (relevant && relevant.offset < next) {
        emit(relevant);
        relevant = undefined;
        if (full()) return;
      }
      out.push(u);
      processed = { offset: next, rangeEnd: false };
    }
    if (next > to && !full()) {
      if (relevant && relevant.offset <= to) {
        emit(relevant);
        relevant = undefined;
      }
      processed = { offset: to, rangeEnd: true };
    }
  };
  /** keepAlive's Timeout element: a checkpoint where the stream stands, if the cache has one there. */
  const timeout = () => {
    const c = cache.fetch();
    if (!c || (streamed && streamed.offset >= c.offset) || full()) return;
    const here =
      processed === undefined ? c.offset === begin : processed.rangeEnd && processed.offset === c.offset;
    if (here) emit(c);
  };
  range(state.log.end);
  if (full() || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    let finished = false;
    const idleTimer = () => (idleMs === undefined ? undefined : setTimeout(done, Math.max(0, idleMs)));
    let idle = idleTimer();
    signal?.addEventListener('abort', done, { once: true });
    const first = setTimeout(() => step(timeout), 500);
    let keepAlive = setTimeout(onKeepAlive, options.idleCheckpointTimeoutMs);
    function onKeepAlive() {
      step(timeout);
      keepAlive = setTimeout(onKeepAlive, options.idleCheckpointTimeoutMs);
    }
    function step(f: () => void) {
      if (finished) return;
      const before = out.length;
      f();
      if (full()) return done();
      if (out.length > before) {
        clearTimeout(idle);
        idle = idleTimer();
      }
    }
    // Scan after the committing turn is over (contracts are activated after the append).
    const unsubscribe = state.log.onAppend(() =>
      queueMicrotask(() => {
        if (finished) return;
        clearTimeout(keepAlive);
        keepAlive = setTimeout(onKeepAlive, options.idleCheckpointTimeoutMs);
        step(() => range(state.log.end));
      }),
    );
    function done() {
      if (finished) return;
      finished = true;
      signal?.removeEventListener('abort', done);
      clearTimeout(idle);
      clearTimeout(first);
      clearTimeout(keepAlive);
      unsubscribe();
      resolve();
    }
  });
}

function checkpoint(c: Checkpoint) {
  return {
    OffsetCheckpoint: {
      value: {
        offset: c.offset,
        synchronizerTimes: [...c.times]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([synchronizerId, recordTime]) => ({ synchronizerId, recordTime })),
      },
    },
  };
}
