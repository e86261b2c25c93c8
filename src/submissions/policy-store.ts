// The approval policy's versions in Redis (issue 15): each change is a new numbered version, written with its
// author and time in one Lua step; the current one is what every API process applies.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { PolicyDocument } from '../policy/index.ts';
import { auditFields } from './audit.ts';
import { AUDIT_LUA, runScript, script } from './scripts.ts';
import { redisFailed } from './store.ts';

export interface PolicyVersion {
  version: number;
  at: string;
  by: string;
  document: PolicyDocument;
}

/**
 * KEYS: 1 seq, 2 current, 3 versions list, 4 audit stream. ARGV: 1 document json, 2 at, 3 by, 4.. the audit entry
 * (`auditFields`: kind, at, actor, the document's SHA-256), to which the script adds the version. Returns the new
 * version; the change is an entry of the audit chain in the same step.
 */
const PUT = script(`${AUDIT_LUA}
local v = redis.call('INCR', KEYS[1])
local entry = '{"version":' .. v .. ',"at":' .. cjson.encode(ARGV[2]) .. ',"by":' .. cjson.encode(ARGV[3]) ..
  ',"document":' .. ARGV[1] .. '}'
redis.call('SET', KEYS[2], entry)
redis.call('RPUSH', KEYS[3], entry)
local fields = {}
for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
auditAppend(KEYS[4], fields, { 'version', tostring(v) })
return v
`);

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export class PolicyStore {
  private readonly prefix: string;
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.prefix = prefix.endsWith(':') ? prefix : `${prefix}:`;
  }

  async current(): Promise<PolicyVersion | undefined> {
    const raw = await this.redis.get(`${this.prefix}policy:current`).catch(redisFailed);
    return raw ? (JSON.parse(raw) as PolicyVersion) : undefined;
  }

  /** Stores `document` (already validated) as the next version. */
  async put(document: PolicyDocument, by: string, at = new Date().toISOString()): Promise<PolicyVersion> {
    const json = JSON.stringify(document);
    const version = (await runScript(
      this.redis,
      PUT,
      [
        `${this.prefix}policy:seq`,
        `${this.prefix}policy:current`,
        `${this.prefix}policy:versions`,
        `${this.prefix}audit`,
      ],
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
    const raw = await this.redis.lrange(`${this.prefix}policy:versions`, 0, -1).catch(redisFailed);
    return raw.map((r) => JSON.parse(r) as PolicyVersion);
  }

  /** At start: makes the file's document current unless it already is (a change is a new version). */
  async seed(document: PolicyDocument, by: string): Promise<PolicyVersion> {
    const cur = await this.current();
    if (cur && canonical(cur.document) === canonical(document)) return cur;
    return this.put(document, by);
  }
}
