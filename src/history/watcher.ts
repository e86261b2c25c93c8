// The ledger watcher: follows POST /v2/updates/flats for every party in the registry from a checkpoint in
// Redis and writes the party history index (index-store.ts) with its events. It reads every template and, with
// their views, the token-standard Holding and TransferInstruction interfaces (tokens.ts). Exactly one runs across worker
// processes: it acts only while it holds the lease (src/redis/lease.ts), which another worker takes over when the
// holder dies. Duplicate writes are harmless anyway: the index adds a (party, transaction) pair only once.
//
// Every read ends well inside the JSON server's request timeout (20 s, then `503 text/plain`): it reads bounded
// ranges up to the ledger end it has just asked for (they complete at once, whatever the traffic), and waits for
// news with an open-ended read of one element that ends at the first update or after the idle timeout. A 503 is
// answered by reading a shorter range (or waiting less) and trying again at once.
//
// A ledger end below the checkpoint means the ledger moved backwards (a participant restored from a backup, a
// LocalNet reset): the watcher warns once, writes a `ledger.reset` event and reads the ledger again from its
// earliest offset. The index keeps what it holds, so a transaction seen before is never announced again as new.

import type { JsTransaction, LedgerClient, Update } from '@quill/canton/ledger';
import { isLedgerError, updateOffset } from '@quill/canton/ledger';
import { HOLDING_INTERFACE, TRANSFER_INSTRUCTION_INTERFACE } from '@quill/canton/token';
import { type Log, noLog } from '../log.ts';
import { type Running, startLoop } from '../redis/consumer.ts';
import type { Lease } from '../redis/lease.ts';
import type { HistoryIndex, IndexedTransaction } from './index-store.ts';

export type WatcherLedger = Pick<
  LedgerClient,
  'updatesFlats' | 'iterateUpdates' | 'latestPrunedOffsets' | 'ledgerEndOffset'
>;

export interface WatcherOptions {
  ledger: WatcherLedger;
  index: HistoryIndex;
  lease: Lease;
  /** The parties to follow (the registry), read again before every page. */
  parties: () => Promise<string[]>;
  /** Updates asked for per page (1..200). */
  pageSize: number;
  /** How long one read waits for new updates before the participant ends it (ms). */
  idleTimeoutMs: number;
  /** Reconnect backoff bounds (ms). */
  backoff?: { initialMs: number; maxMs: number };
  log?: Log;
  /** Called after every step that wrote to the index (tests, metrics). */
  onProgress?: (checkpoint: number) => void;
}

const PRUNED = 'PARTICIPANT_PRUNED_DATA_ACCESSED';
/** The longest wait for news, well inside the JSON server's 20 s request timeout. */
const MAX_WAIT_MS = 10_000;
/**
 * After a step that caught up with the ledger end, how long the watcher lets new updates gather before the next.
 * A step costs two ledger reads and two Redis round trips: under steady traffic one step then covers every
 * transaction of this window, not one or two each (at 100/s, at most ten steps a second instead of about fifty),
 * while the first transaction after a quiet spell is still read as soon as the wait for news ends.
 */
const GATHER_MS = 100;

/** The JSON server's request timeout (pekko-http's `503 text/plain`) or another text 503. */
function timedOut(err: unknown): boolean {
  return isLedgerError(err) && err.code === 'HTTP_503';
}

/** The parties a transaction concerns among `ours`. */
export function concerned(tx: JsTransaction, ours: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  const add = (ps: readonly string[] | null | undefined) => {
    for (const p of ps ?? []) if (ours.has(p)) out.add(p);
  };
  for (const e of tx.events) {
    if ('CreatedEvent' in e) {
      add(e.CreatedEvent.witnessParties);
      add(e.CreatedEvent.signatories);
      add(e.CreatedEvent.observers);
    } else if ('ArchivedEvent' in e) add(e.ArchivedEvent.witnessParties);
    else if ('ExercisedEvent' in e) {
      add(e.ExercisedEvent.witnessParties);
      add(e.ExercisedEvent.actingParties);
    }
  }
  return [...out].sort();
}

function indexed(tx: JsTransaction, parties: string[]): IndexedTransaction {
  return {
    updateId: tx.updateId,
    offset: tx.offset,
    recordTime: tx.recordTime,
    ...(tx.commandId ? { commandId: tx.commandId } : {}),
    ...(tx.externalTransactionHash
      ? { externalTransactionHash: tx.externalTransactionHash.toLowerCase() }
      : {}),
    parties,
    transaction: tx,
  };
}

/**
 * Every template (the wildcard), and the token-standard interfaces with their views: a created holding or
 * transfer instruction of any registry carries its view (`interfaceViews`), which is all the index reads of it.
 */
const WILDCARD = { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } };
const TOKEN_FILTERS = [HOLDING_INTERFACE, TRANSFER_INSTRUCTION_INTERFACE].map((interfaceId) => ({
  identifierFilter: {
    InterfaceFilter: { value: { interfaceId, includeInterfaceView: true, includeCreatedEventBlob: false } },
  },
}));

/** A participant without the token-standard packages refuses filters naming their interfaces (404). */
const NO_TOKEN_PACKAGES = new Set([
  'PACKAGE_NAMES_NOT_FOUND',
  'NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME',
]);
/** How long the watcher then reads without them before asking again (the packages may be uploaded). */
const TOKENS_RETRY_MS = 60_000;

function updateFormat(parties: readonly string[], tokens: boolean) {
  const filters = { cumulative: tokens ? [WILDCARD, ...TOKEN_FILTERS] : [WILDCARD] };
  return {
    includeTransactions: {
      eventFormat: {
        filtersByParty: Object.fromEntries(parties.map((p) => [p, filters])),
        verbose: false,
      },
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' as const,
    },
  };
}

export class LedgerWatcher {
  readonly #o: WatcherOptions;
  readonly #log: Log;
  #running: Running | undefined;
  /** Parties followed since this process began following; a new one is caught up from the earliest offset. */
  #followed: Set<string> | undefined;
  /** How many offsets one bounded read covers at most (halved after a 503; undefined: up to the ledger end). */
  #span: number | undefined;
  /** How long one read waits for news (halved after a 503). */
  #waitMs: number;
  /** Until when reads leave the token-standard interfaces out (the participant has none of their packages). */
  #tokensOffUntil = 0;
  /** The ledger end and the checkpoint as the last step saw them (metrics: how far behind the index is). */
  #position: { ledgerEnd: number; checkpoint: number } | undefined;

  constructor(o: WatcherOptions) {
    this.#o = o;
    this.#log = o.log ?? noLog;
    this.#waitMs = Math.min(MAX_WAIT_MS, o.idleTimeoutMs);
    // Another holder may have followed parties this process has not: start over when the lease comes back.
    o.lease.onLost(() => {
      this.#followed = undefined;
      // Another holder reads now: this process's last position would go stale on /metrics.
      this.#position = undefined;
    });
  }

  start(): void {
    this.#running ??= startLoop({
      name: 'ledger watcher',
      lease: this.#o.lease,
      step: () => this.step(),
      idleMs: Math.min(1000, Math.max(50, this.#o.idleTimeoutMs)),
      backoff: this.#o.backoff ?? { initialMs: 200, maxMs: 10_000 },
      log: this.#log,
    });
  }

  async stop(): Promise<void> {
    await this.#running?.stop();
  }

  /** Where the last step found the ledger end and left the checkpoint (undefined before one ran here). */
  get position(): { ledgerEnd: number; checkpoint: number } | undefined {
    return this.#position;
  }

  #format(parties: readonly string[]) {
    return updateFormat(parties, Date.now() >= this.#tokensOffUntil);
  }

  /**
   * Whether `err` says the participant has no token-standard package: then no contract implements their
   * interfaces, and reads go on without those filters for a while (the caller tries again at once).
   */
  #noTokenPackages(err: unknown): boolean {
    if (!isLedgerError(err) || !NO_TOKEN_PACKAGES.has(err.code)) return false;
    if (this.#tokensOffUntil === 0)
      this.#log(
        'warn',
        `ledger watcher: the participant has no token-standard packages (${err.code}); holdings and transfer instructions are not indexed`,
      );
    this.#tokensOffUntil = Date.now() + TOKENS_RETRY_MS;
    return true;
  }

  /** The earliest offset still readable (0 when nothing was pruned). */
  async #earliest(): Promise<number> {
    return (await this.#o.ledger.latestPrunedOffsets()).participantPrunedUpToInclusive ?? 0;
  }

  /**
   * One step: catch up new parties, then read the updates after the checkpoint up to the ledger end (a bounded
   * range) and write them in one step, or wait for news when there are none. False when there is no party to
   * follow, or nothing came while waiting.
   */
  async step(): Promise<boolean> {
    const { ledger, index } = this.#o;
    const parties = [...new Set(await this.#o.parties())].sort();
    if (parties.length === 0) return false;
    let cp = await index.checkpoint();
    if (cp === undefined) {
      cp = await this.#earliest();
      this.#followed = new Set(parties);
    }
    const end = await ledger.ledgerEndOffset();
    this.#position = { ledgerEnd: end, checkpoint: cp };
    if (end < cp) return this.#reset(cp, end);
    const fresh = this.#followed ? parties.filter((p) => !this.#followed!.has(p)) : [];
    if (this.#followed === undefined) this.#followed = new Set(parties);
    if (fresh.length > 0) {
      try {
        await this.#catchUp(fresh, cp);
      } catch (err) {
        if (this.#noTokenPackages(err)) return true;
        throw err;
      }
    }
    if (end === cp) return this.#wait(cp, parties);

    const upTo = this.#span === undefined ? end : Math.min(end, cp + this.#span);
    const limit = this.#o.pageSize;
    let page: { update?: Update | null | undefined }[];
    try {
      page = await ledger.updatesFlats(
        { beginExclusive: cp, endInclusive: upTo, updateFormat: this.#format(parties) },
        { limit },
      );
    } catch (err) {
      if (timedOut(err)) {
        this.#span = Math.max(1, Math.floor((upTo - cp) / 2));
        this.#log(
          'warn',
          `ledger watcher: reading ${cp + 1}..${upTo} timed out; reading ${this.#span} offsets`,
        );
        return true;
      }
      if (isLedgerError(err) && err.code === PRUNED) return this.#pruned(cp, parties, err);
      if (this.#noTokenPackages(err)) return true;
      throw err;
    }
    if (this.#span !== undefined) this.#span = this.#span * 2 >= 1 << 30 ? undefined : this.#span * 2;
    const ours = new Set(parties);
    let last = cp;
    const txs: IndexedTransaction[] = [];
    for (const el of page) {
      const u = el.update;
      if (!u) continue;
      if ('Transaction' in u) {
        const tx = u.Transaction.value;
        last = Math.max(last, tx.offset);
        const ps = concerned(tx, ours);
        if (ps.length) txs.push(indexed(tx, ps));
      } else last = Math.max(last, updateOffset(u));
    }
    // A page shorter than the limit is the whole range (a bounded read completes once it has everything).
    const checkpoint = page.length < limit ? upTo : last;
    await index.ingest({ transactions: txs, checkpoint });
    this.#position = { ledgerEnd: end, checkpoint };
    this.#o.onProgress?.(checkpoint);
    if (checkpoint === end) await new Promise((r) => setTimeout(r, Math.min(GATHER_MS, this.#waitMs)));
    return true;
  }

  /** Waits for news after `cp`: an open-ended read of one element, ended by the idle timeout. */
  async #wait(cp: number, parties: string[]): Promise<boolean> {
    let page: { update?: Update | null | undefined }[];
    try {
      page = await this.#o.ledger.updatesFlats(
        { beginExclusive: cp, updateFormat: this.#format(parties) },
        { limit: 1, streamIdleTimeoutMs: this.#waitMs },
      );
    } catch (err) {
      if (timedOut(err)) {
        this.#waitMs = Math.max(10, Math.floor(this.#waitMs / 2));
        this.#log('warn', `ledger watcher: a wait for updates timed out; waiting ${this.#waitMs} ms`);
        return true;
      }
      if (isLedgerError(err) && err.code === PRUNED) return this.#pruned(cp, parties, err);
      if (this.#noTokenPackages(err)) return true;
      throw err;
    }
    // Something after the checkpoint (not a checkpoint where it stands): the next step reads it.
    return page.some((el) => el.update != null && updateOffset(el.update) > cp);
  }

  /** The checkpoint lies below the pruning offset: resume after it and say which range was lost. */
  async #pruned(cp: number, parties: string[], err: unknown): Promise<boolean> {
    const earliest = await this.#earliest();
    if (earliest <= cp) throw err;
    this.#log('warn', `ledger watcher: offsets ${cp + 1}..${earliest} were pruned before they were read`);
    await this.#o.index.ingest({
      transactions: [],
      checkpoint: earliest,
      gaps: parties.map((party) => ({ party, fromExclusive: cp, toInclusive: earliest })),
    });
    this.#o.onProgress?.(earliest);
    return true;
  }

  /**
   * The ledger end is below the checkpoint: the ledger moved backwards. Warn once, write `ledger.reset` and move
   * the checkpoint back to the earliest offset the ledger holds, in one step (only if no other holder moved it
   * meanwhile). The whole ledger is read again: what it still holds of what was indexed is known by update id
   * and not announced again; the rest is new.
   */
  async #reset(cp: number, end: number): Promise<boolean> {
    const earliest = await this.#earliest();
    this.#log(
      'warn',
      `ledger watcher: the ledger end ${end} is before the checkpoint ${cp}: the ledger was reset or restored; ` +
        `reading it again from offset ${earliest}`,
    );
    if (await this.#o.index.reset(cp, earliest, end)) this.#o.onProgress?.(earliest);
    this.#followed = undefined;
    this.#span = undefined;
    return true;
  }

  /** A party new to this watcher: its history from the earliest offset up to the checkpoint, for it alone. */
  async #catchUp(parties: string[], upTo: number): Promise<void> {
    const ours = new Set(parties);
    let from = await this.#earliest();
    let batch: IndexedTransaction[] = [];
    for await (const u of this.#o.ledger.iterateUpdates({
      beginExclusive: from,
      endInclusive: upTo,
      pageSize: this.#o.pageSize,
      updateFormat: this.#format(parties),
    })) {
      if (!('Transaction' in u)) continue;
      const tx = u.Transaction.value;
      const ps = concerned(tx, ours);
      if (ps.length) batch.push(indexed(tx, ps));
      if (batch.length >= this.#o.pageSize) {
        await this.#o.index.ingest({ transactions: batch, checkpoint: -1 });
        batch = [];
      }
      from = tx.offset;
    }
    if (batch.length) await this.#o.index.ingest({ transactions: batch, checkpoint: -1 });
    for (const p of parties) this.#followed?.add(p);
    this.#log(
      'info',
      `ledger watcher: caught up ${parties.length} new part${parties.length === 1 ? 'y' : 'ies'}`,
    );
  }
}
