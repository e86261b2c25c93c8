// The ledger watcher: follows POST /v2/updates/flats for every party in the registry from a checkpoint in
// Redis and writes the party history index (index-store.ts) with its events. Exactly one runs across worker
// processes: it acts only while it holds the lease (src/redis/lease.ts), which another worker takes over when the
// holder dies. Duplicate writes are harmless anyway: the index adds a (party, transaction) pair only once.

import type { JsTransaction, LedgerClient, Update } from '@quill/canton/ledger';
import { isLedgerError, updateOffset } from '@quill/canton/ledger';
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

function updateFormat(parties: readonly string[]) {
  return {
    includeTransactions: {
      eventFormat: {
        filtersByParty: Object.fromEntries(parties.map((p) => [p, { cumulative: [] }])),
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

  constructor(o: WatcherOptions) {
    this.#o = o;
    this.#log = o.log ?? noLog;
    // Another holder may have followed parties this process has not: start over when the lease comes back.
    o.lease.onLost(() => {
      this.#followed = undefined;
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

  /** The earliest offset still readable (0 when nothing was pruned). */
  async #earliest(): Promise<number> {
    return (await this.#o.ledger.latestPrunedOffsets()).participantPrunedUpToInclusive ?? 0;
  }

  /**
   * One page: catch up new parties, then read from the checkpoint (the read waits up to the idle timeout for
   * updates) and write the page in one step. False when there is no party to follow.
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
    const fresh = this.#followed ? parties.filter((p) => !this.#followed!.has(p)) : [];
    if (this.#followed === undefined) this.#followed = new Set(parties);
    if (fresh.length > 0) await this.#catchUp(fresh, cp);

    const ours = new Set(parties);
    let page: { update?: Update | null | undefined }[];
    try {
      page = await ledger.updatesFlats(
        { beginExclusive: cp, updateFormat: updateFormat(parties) },
        { limit: this.#o.pageSize, streamIdleTimeoutMs: this.#o.idleTimeoutMs },
      );
    } catch (err) {
      if (isLedgerError(err) && err.code === PRUNED) {
        const earliest = await this.#earliest();
        if (earliest <= cp) throw err;
        this.#log('warn', `ledger watcher: offsets ${cp + 1}..${earliest} were pruned before they were read`);
        await index.ingest({
          transactions: [],
          checkpoint: earliest,
          gaps: parties.map((party) => ({ party, fromExclusive: cp, toInclusive: earliest })),
        });
        this.#o.onProgress?.(earliest);
        return true;
      }
      throw err;
    }
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
    if (last === cp && txs.length === 0) return true;
    await index.ingest({ transactions: txs, checkpoint: last });
    this.#o.onProgress?.(last);
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
      updateFormat: updateFormat(parties),
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
