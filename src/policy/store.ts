// The approval policy's versions in Redis: each change is a new numbered version, written with its
// author and time in one Lua step; the current one is what every API process applies.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { auditFields } from '../audit/index.ts';
import { canonicalJson } from '../json.ts';
import { loadScript, type RedisKeys, redisFailed, redisKeys, runScript } from '../redis/index.ts';
import type { PolicyDocument } from './schema.ts';

export interface PolicyVersion {
  version: number;
  at: string;
  by: string;
  document: PolicyDocument;
}

const PUT = loadScript('policy-put');

export class PolicyStore {
  readonly #keys: RedisKeys;
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.#keys = redisKeys(prefix);
  }

  async current(): Promise<PolicyVersion | undefined> {
    const raw = await this.redis.get(this.#keys.policyCurrent).catch(redisFailed);
    return raw ? (JSON.parse(raw) as PolicyVersion) : undefined;
  }

  /** Stores `document` (already validated) as the next version. */
  async put(document: PolicyDocument, by: string, at = new Date().toISOString()): Promise<PolicyVersion> {
    const k = this.#keys;
    const json = JSON.stringify(document);
    const version = (await runScript(
      this.redis,
      PUT,
      [k.policySequence, k.policyCurrent, k.policyVersions, k.audit, k.auditHead],
      [
        json,
        at,
        by,
        ...auditFields({
          kind: 'policy',
          at,
          actor: by,
          document: createHash('sha256').update(json).digest('hex'),
        }),
      ],
    ).catch(redisFailed)) as number;
    return { version, at, by, document };
  }

  /** Every version, oldest first. */
  async versions(): Promise<PolicyVersion[]> {
    const raw = await this.redis.lrange(this.#keys.policyVersions, 0, -1).catch(redisFailed);
    return raw.map((r) => JSON.parse(r) as PolicyVersion);
  }

  /** At start: makes the file's document current unless it already is (a change is a new version). */
  async seed(document: PolicyDocument, by: string): Promise<PolicyVersion> {
    const cur = await this.current();
    if (cur && canonicalJson(cur.document) === canonicalJson(document)) return cur;
    return this.put(document, by);
  }
}
