// The audit chain as stored: the `<prefix>audit` stream and its head. Changes that live in Redis append their entry
// in their own script (a signature with its record, an approval with its transition, a policy with its version);
// changes that do not (a key file written, a key disabled) append one here.
import type { Redis } from 'ioredis';
import { redisFailed } from '../redis/errors.ts';
import { type RedisKeys, redisKeys } from '../redis/keys.ts';
import { loadScript, runScript } from '../redis/scripts.ts';
import type { KeyView } from '../signing/index.ts';
import { auditFields, type ChainEntry } from './chain.ts';

/** A signature's entry: who asked, which key signed which hash for which command. */
export interface SignatureEntry {
  at: string;
  actor: string;
  party: string;
  keyFingerprint: string;
  hash: string;
  commandId: string;
  /** The id the new record was to have; a record by that id exists only when `stored` is 'true'. */
  submission: string;
  /** Set by the store: 'false' when the command id was already taken and the signature went unused. */
  stored?: 'true' | 'false';
  /** Set by the store when `stored` is 'false': the record that holds the command id. */
  existingSubmission?: string;
}

/** The kinds of a key's entry: the same from the API, the console and the CLI (docs/audit.md). */
export const KEY_AUDIT_KINDS = ['key.generate', 'key.adopt', 'key.disable', 'key.reseal'] as const;
export type KeyAuditKind = (typeof KEY_AUDIT_KINDS)[number];

export const AUDITED = loadScript('audited');

export class AuditLog {
  readonly #keys: RedisKeys;
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.#keys = redisKeys(prefix);
  }

  /** Appends one entry on its own (a change that is not in Redis: a key file written). */
  async append(entry: Record<string, string>): Promise<void> {
    const k = this.#keys;
    await runScript(
      this.redis,
      AUDITED,
      [k.audit, k.auditHead, k.audit],
      ['', '', ...auditFields(entry)],
    ).catch(redisFailed);
  }

  /** Entries after `after` (exclusive; '0-0' = from the start), in order, fields as stored. */
  async entries(after = '0-0', count = 1000): Promise<ChainEntry[]> {
    const rows = await this.redis
      .xrange(this.#keys.audit, `(${after}`, '+', 'COUNT', count)
      .catch(redisFailed);
    return rows.map(([id, f]) => ({
      id,
      fields: Array.from({ length: f.length / 2 }, (_, i) => [f[2 * i], f[2 * i + 1]] as [string, string]),
    }));
  }

  /** The hash of the newest entry (what the next one links to); undefined before the first. */
  async head(): Promise<string | undefined> {
    return (await this.redis.get(this.#keys.auditHead).catch(redisFailed)) ?? undefined;
  }

  /** The chain's length, head and newest id, read in one step (a checkpoint's subject); undefined when empty. */
  async tip(): Promise<{ count: number; head: string; lastId: string } | undefined> {
    const k = this.#keys;
    const replies = await this.redis
      .multi()
      .xlen(k.audit)
      .get(k.auditHead)
      .xrevrange(k.audit, '+', '-', 'COUNT', 1)
      .exec()
      .catch(redisFailed);
    const failed = replies?.find(([err]) => err)?.[0];
    if (!replies || failed) return redisFailed(failed ?? new Error('the transaction was aborted'));
    const count = replies[0]?.[1] as number;
    const head = replies[1]?.[1] as string | null;
    const last = (replies[2]?.[1] as [string, string[]][] | undefined)?.[0];
    if (count === 0 || head === null || !last) return undefined;
    return { count, head, lastId: last[0] };
  }

  /** A key made, taken over or disabled (files or a token, not Redis): its entry follows the change. */
  appendKey(
    kind: KeyAuditKind,
    actor: string,
    key: Pick<KeyView, 'fingerprint' | 'algorithm' | 'backend'>,
    /** Why (a disable's reason), when one was given. */
    reason?: string,
  ) {
    return this.append({
      kind,
      at: new Date().toISOString(),
      actor,
      keyFingerprint: key.fingerprint,
      algorithm: key.algorithm,
      backend: key.backend,
      ...(reason ? { reason } : {}),
    });
  }

  /** The signature entries (entries of other kinds — approvals, policy, keys — left out), oldest first. */
  async signatures(count = 10_000): Promise<SignatureEntry[]> {
    const rows = await this.redis.xrange(this.#keys.audit, '-', '+', 'COUNT', count).catch(redisFailed);
    return rows.flatMap(([, fields]) => {
      const o: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) o[fields[i] as string] = fields[i + 1] as string;
      return o.kind === undefined ? [o as unknown as SignatureEntry] : [];
    });
  }
}
