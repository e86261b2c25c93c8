// The approval policy's versions in Redis: each change is a new numbered version, written with its
// author and time in one Lua step; the current one is what every API process applies.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { auditFields } from '../audit/index.ts';
import { canonicalJson } from '../json.ts';
import { loadScript, type RedisKeys, redisFailed, redisKeys, runScript } from '../redis/index.ts';
import { PolicyRefused } from './errors.ts';
import type { PolicyDocument } from './schema.ts';

export interface PolicyVersion {
  version: number;
  at: string;
  by: string;
  document: PolicyDocument;
}

/** What an approver of a policy change binds to: SHA-256 (hex) of the document's canonical JSON. */
export function policyHash(document: PolicyDocument): string {
  return createHash('sha256').update(canonicalJson(document)).digest('hex');
}

/** A version's audit entry (the script adds the version number). */
export function policyEntry(document: PolicyDocument, at: string, by: string, proposal?: string) {
  return auditFields({
    kind: 'policy',
    at,
    actor: by,
    document: policyHash(document),
    ...(proposal !== undefined ? { proposal } : {}),
  });
}

const PUT = loadScript('policy-put');

export class PolicyStore {
  readonly #keys: RedisKeys;
  constructor(
    readonly redis: Redis,
    readonly prefix: string,
  ) {
    this.#keys = redisKeys(prefix);
  }

  async current(): Promise<PolicyVersion | undefined> {
    const raw = await this.redis.get(this.#keys.policyCurrent).catch(redisFailed);
    return raw ? (JSON.parse(raw) as PolicyVersion) : undefined;
  }

  /** Version `n` (numbered from 1); undefined when there is none. */
  async version(n: number): Promise<PolicyVersion | undefined> {
    if (!Number.isSafeInteger(n) || n < 1) return undefined;
    const raw = await this.redis.lindex(this.#keys.policyVersions, n - 1).catch(redisFailed);
    return raw ? (JSON.parse(raw) as PolicyVersion) : undefined;
  }

  /**
   * Stores `document` (already validated) as the next version. With `replaces` (the version the caller read, 0 for
   * none), refuses with 409 CONFLICT when another version became current meanwhile.
   */
  async put(
    document: PolicyDocument,
    by: string,
    at = new Date().toISOString(),
    replaces?: number,
  ): Promise<PolicyVersion> {
    const k = this.#keys;
    const version = await runScript(
      this.redis,
      PUT,
      [k.policySequence, k.policyCurrent, k.policyVersions, k.audit, k.auditHead],
      [
        JSON.stringify(document),
        at,
        by,
        replaces === undefined ? '' : String(replaces),
        ...policyEntry(document, at, by),
      ],
    ).catch(redisFailed);
    if (version === 'STALE') {
      throw new PolicyRefused(409, 'CONFLICT', 'the policy changed meanwhile: read it again and retry');
    }
    return { version: version as number, at, by, document };
  }

  /** Every version, oldest first. */
  async versions(): Promise<PolicyVersion[]> {
    const raw = await this.redis.lrange(this.#keys.policyVersions, 0, -1).catch(redisFailed);
    return raw.map((r) => JSON.parse(r) as PolicyVersion);
  }
}
