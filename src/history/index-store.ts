// The party history index the watcher writes: transactions by party in offset order, by update id and by
// externalTransactionHash, each party's active holdings and pending transfer instructions (tokens.ts), the
// watcher's checkpoint, and the events that belong to them. One Lua step writes a
// batch's index entries, its events (XADD to the event log, src/events) and the checkpoint
// move, so a crash between them neither loses nor doubles anything; the checkpoint goes backwards only in `reset`,
// with its `ledger.reset` event, when the ledger itself did.

import type { JsTransaction } from '@quill/canton/ledger';
import type { Redis } from 'ioredis';
import { type RedisKeys, redisKeys } from '../redis/keys.ts';
import { loadScript, runScript } from '../redis/scripts.ts';
import { HistoryError } from './errors.ts';
import { type IndexedHolding, type IndexedInstruction, tokenChanges } from './tokens.ts';

/** One indexed transaction as stored and served. */
export interface IndexedTransaction {
  updateId: string;
  offset: number;
  recordTime: string;
  commandId?: string;
  externalTransactionHash?: string;
  /** The wallet's parties it concerns. */
  parties: string[];
  transaction: JsTransaction;
}

export interface GapEvent {
  party: string;
  fromExclusive: number;
  toInclusive: number;
}

export interface IngestBatch {
  transactions: IndexedTransaction[];
  /** Where the checkpoint moves to (the last offset the batch covers). */
  checkpoint: number;
  /** `ledger.gap` events to write with this step. */
  gaps?: GapEvent[];
}

const INGEST = loadScript('ingest');
const RESET = loadScript('watch-reset');

export class HistoryIndex {
  readonly keys: RedisKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
  }

  get checkpointKey(): string {
    return this.keys.watchCheckpoint;
  }
  #byUpdate = (): string => this.keys.historyByUpdate;
  #byHash = (): string => this.keys.historyByHash;
  #party = (p: string): string => this.keys.historyOfParty(p);

  /** The offset the watcher has processed up to (inclusive); undefined before its first run. */
  async checkpoint(): Promise<number | undefined> {
    const v = await this.redis.get(this.checkpointKey).catch(unavailable);
    return v === null ? undefined : Number(v);
  }

  /** Writes a batch in one step; returns how many (party, transaction) entries were new. */
  async ingest(batch: IngestBatch): Promise<number> {
    const k = this.keys;
    const keys: string[] = [k.watchCheckpoint, k.historyByUpdate, k.historyByHash, k.events];
    /** KEYS position (1-based, as Lua counts) of each key the items name, each key once. */
    const at = new Map<string, number>();
    const position = (key: string) => {
      let i = at.get(key);
      if (i === undefined) {
        keys.push(key);
        i = keys.length;
        at.set(key, i);
      }
      return i;
    };
    const items = batch.transactions.map((t) => {
      const tokens = tokenChanges(t.transaction);
      // The token part's keys only when the transaction touches token contracts (most do not).
      const touches = tokens.holdings.length + tokens.instructions.length + tokens.consumed.length > 0;
      return {
        u: t.updateId,
        o: t.offset,
        h: t.externalTransactionHash ?? '',
        p: t.parties,
        pk: t.parties.map((p) => position(k.historyOfParty(p))),
        ck: t.commandId ? position(k.commandIndex(t.commandId)) : 0,
        j: JSON.stringify(t),
        ...(touches
          ? {
              hk: t.parties.map((p) => position(k.holdingsOfParty(p))),
              tk: t.parties.map((p) => position(k.instructionsOfParty(p))),
              hs: tokens.holdings.map((x) => ({ c: x.contractId, o: x.owner, j: JSON.stringify(x) })),
              ti: tokens.instructions.map((x) => ({
                c: x.contractId,
                s: x.sender,
                r: x.receiver,
                j: JSON.stringify(x),
              })),
              x: tokens.consumed,
            }
          : {}),
      };
    });
    const n = await runScript(this.redis, INGEST, keys, [
      String(batch.checkpoint),
      items.length ? JSON.stringify(items) : '[]',
      batch.gaps?.length ? JSON.stringify(batch.gaps) : '[]',
      new Date().toISOString(),
    ]).catch(unavailable);
    return Number(n);
  }

  /**
   * The ledger moved backwards (its end `ledgerEnd` below the checkpoint `from`): moves the checkpoint back to
   * `to` and writes a `ledger.reset` event, in one step; nothing when the checkpoint no longer is `from`. True
   * when it moved.
   */
  async reset(from: number, to: number, ledgerEnd: number): Promise<boolean> {
    const k = this.keys;
    const body = JSON.stringify({ checkpoint: from, ledgerEnd });
    const args = [String(from), String(to), body, new Date().toISOString()];
    const n = await runScript(this.redis, RESET, [k.watchCheckpoint, k.events], args).catch(unavailable);
    return Number(n) === 1;
  }

  async byUpdateId(updateId: string): Promise<IndexedTransaction | undefined> {
    const v = await this.redis.hget(this.#byUpdate(), updateId).catch(unavailable);
    return v === null ? undefined : (JSON.parse(v) as IndexedTransaction);
  }

  async byHash(hash: string): Promise<IndexedTransaction | undefined> {
    const id = await this.redis.hget(this.#byHash(), hash.toLowerCase()).catch(unavailable);
    return id === null ? undefined : this.byUpdateId(id);
  }

  /** How many transactions the party's history holds. */
  async count(party: string): Promise<number> {
    return this.redis.zcard(this.#party(party)).catch(unavailable);
  }

  /** The party's active holdings (any instrument, any registry), as their Holding views said. */
  async holdings(party: string): Promise<IndexedHolding[]> {
    const raw = await this.redis.hvals(this.keys.holdingsOfParty(party)).catch(unavailable);
    return raw.map((v) => JSON.parse(v) as IndexedHolding);
  }

  /** The transfer instructions pending for the party, as sender or receiver. */
  async instructions(party: string): Promise<IndexedInstruction[]> {
    const raw = await this.redis.hvals(this.keys.instructionsOfParty(party)).catch(unavailable);
    return raw.map((v) => JSON.parse(v) as IndexedInstruction);
  }

  /**
   * A page of a party's history in offset order. `after`/`before` are exclusive offsets (the cursors);
   * ascending by default, descending with `order: 'desc'`. `next` is the offset to pass on for the next page.
   */
  async page(
    party: string,
    q: { after?: number; before?: number; limit: number; order: 'asc' | 'desc' },
  ): Promise<{ items: IndexedTransaction[]; next?: number }> {
    const lo = q.after === undefined ? '-inf' : `(${q.after}`;
    const hi = q.before === undefined ? '+inf' : `(${q.before}`;
    const key = this.#party(party);
    const ids =
      q.order === 'asc'
        ? await this.redis.zrangebyscore(key, lo, hi, 'LIMIT', 0, q.limit + 1).catch(unavailable)
        : await this.redis.zrevrangebyscore(key, hi, lo, 'LIMIT', 0, q.limit + 1).catch(unavailable);
    const more = ids.length > q.limit;
    const slice = ids.slice(0, q.limit);
    const raw = slice.length ? await this.redis.hmget(this.#byUpdate(), ...slice).catch(unavailable) : [];
    const items = raw.filter((v): v is string => v !== null).map((v) => JSON.parse(v) as IndexedTransaction);
    const last = items.at(-1);
    return more && last ? { items, next: last.offset } : { items };
  }
}

function unavailable(err: unknown): never {
  throw new HistoryError('UNAVAILABLE', 'Redis is unavailable', { cause: err });
}
