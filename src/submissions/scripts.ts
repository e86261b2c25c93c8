// Lua scripts that make every store change atomic: creation with its indexes, and monotonic transitions.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { STATUS_TABLE, SUBMISSION_STATUSES } from './record.ts';

export interface LuaScript {
  source: string;
  sha: string;
}

function script(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Runs a script by sha, loading it again after a Redis restart (NOSCRIPT). */
export async function runScript(
  redis: Redis,
  s: LuaScript,
  keys: string[],
  args: (string | number)[],
): Promise<unknown> {
  try {
    return await redis.evalsha(s.sha, keys.length, ...keys, ...args);
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('NOSCRIPT')) {
      return redis.eval(s.source, keys.length, ...keys, ...args);
    }
    throw err;
  }
}

/** STATUS_TABLE as Lua tables: `RANK[status]`, and `FINAL[status]` true for final statuses. */
const RANK = `
local RANK = { ${SUBMISSION_STATUSES.map((s) => `${s} = ${STATUS_TABLE[s].rank}`).join(', ')} }
local FINAL = { ${SUBMISSION_STATUSES.filter((s) => STATUS_TABLE[s].final)
  .map((s) => `${s} = true`)
  .join(', ')} }
local ANNOUNCE = { ${SUBMISSION_STATUSES.filter((s) => STATUS_TABLE[s].announce)
  .map((s) => `${s} = true`)
  .join(', ')} }
`;

/**
 * Creates a record unless its command id is already taken.
 * KEYS: 1 record, 2 command index, 3 seq counter, 4 all index, 5 party index, 6 status index,
 *       7 party+status index, 8 idempotency key ('' slot allowed), 9 audit stream
 * ARGV: 1 id, 2 record json, 3 payload json, 4 status, 5 hash hex, 6 idempotency value ('' = none),
 *       7 key prefix (for the replaced record's indexes), 8 n = number of outbox field/value items that follow
 *       (the created record's outbox entry, written when it is stored; 0 = none), 9..8+n those items,
 *       9+n.. audit entry field/value pairs (the signature
 *       made for this request is logged whatever the outcome, with `stored` true or false; when false,
 *       `existingSubmission` names the record that holds the command id, so no audit line points nowhere)
 * Returns {1, id, seq} created, {0, existingId} taken by a live or same-hash record.
 * A command id whose record ended final but not committed (rejected, expired) with another hash is handed to
 * the new record.
 */
export const CREATE = script(`${RANK}
local OUTN = tonumber(ARGV[8])
local function audit(stored, existing)
  if #ARGV <= 8 + OUTN then return end
  local entry = {}
  for i = 9 + OUTN, #ARGV do entry[#entry + 1] = ARGV[i] end
  entry[#entry + 1] = 'stored'
  entry[#entry + 1] = stored
  if existing then
    entry[#entry + 1] = 'existingSubmission'
    entry[#entry + 1] = existing
  end
  redis.call('XADD', KEYS[9], '*', unpack(entry))
end
local existing = redis.call('GET', KEYS[2])
if existing then
  local ex = redis.call('HMGET', ARGV[7] .. 'sub:' .. existing, 'status', 'hash')
  local st, h = ex[1], ex[2]
  if not st or h == ARGV[5] or not FINAL[st] or st == 'committed' then
    if ARGV[6] ~= '' and st then redis.call('SET', KEYS[8], ARGV[6], 'NX') end
    audit('false', existing)
    return {0, existing}
  end
end
audit('true')
local seq = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], 'v', 1, 'status', ARGV[4], 'record', ARGV[2], 'payload', ARGV[3],
  'seq', seq, 'hash', ARGV[5])
redis.call('SET', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[4], seq, ARGV[1])
redis.call('ZADD', KEYS[5], seq, ARGV[1])
redis.call('ZADD', KEYS[6], seq, ARGV[1])
redis.call('ZADD', KEYS[7], seq, ARGV[1])
if ARGV[6] ~= '' then redis.call('SET', KEYS[8], ARGV[6]) end
if OUTN > 0 then redis.call('XADD', ARGV[7] .. 'outbox', '*', unpack(ARGV, 9, 8 + OUTN)) end
return {1, ARGV[1], seq}
`);

/**
 * Compare-and-set of a record: applies only if the version matches and the status never moves backwards.
 * The write that moves a record into an announced status (STATUS_TABLE `announce`: the final ones) appends its
 * outbox entry in the same step, so the outbox holds exactly one entry per final record (a final record is
 * never written again); creation writes one too (scripts CREATE), so readers filter on `status`. The outbox is not trimmed: its readers
 * (the waiter, events, webhooks) may be behind, and an entry is a few dozen bytes.
 * KEYS: 1 record
 * ARGV: 1 expected version, 2 new status, 3 new record json, 4 prefix, 5 id, 6 party, 7 update id ('' none),
 *       8.. the outbox entry's field/value pairs (when the new status is announced)
 * Returns {1, newVersion} | {0, currentVersion} (conflict) | {-1, status} (terminal or backwards: refused)
 */
export const TRANSITION = script(`${RANK}
local cur = redis.call('HMGET', KEYS[1], 'v', 'status', 'seq')
if not cur[1] then return {-2, 'missing'} end
local old = cur[2]
if FINAL[old] then return {-1, old} end
if RANK[ARGV[2]] < RANK[old] then return {-1, old} end
if cur[1] ~= ARGV[1] then return {0, cur[1]} end
local v = tonumber(cur[1]) + 1
redis.call('HSET', KEYS[1], 'v', v, 'status', ARGV[2], 'record', ARGV[3])
if old ~= ARGV[2] then
  local p = ARGV[4]
  local seq = cur[3]
  redis.call('ZREM', p .. 'idx:status:' .. old, ARGV[5])
  redis.call('ZADD', p .. 'idx:status:' .. ARGV[2], seq, ARGV[5])
  redis.call('ZREM', p .. 'idx:ps:' .. ARGV[6] .. ':' .. old, ARGV[5])
  redis.call('ZADD', p .. 'idx:ps:' .. ARGV[6] .. ':' .. ARGV[2], seq, ARGV[5])
end
if ARGV[7] ~= '' then redis.call('SET', ARGV[4] .. 'idx:update:' .. ARGV[7], ARGV[5]) end
if ANNOUNCE[ARGV[2]] and old ~= ARGV[2] then redis.call('XADD', ARGV[4] .. 'outbox', '*', unpack(ARGV, 8)) end
return {1, v}
`);

/**
 * Payload retention: follows the outbox (one entry per record that became final, in the order they did) up to
 * a cutoff, and drops the prepared transaction and signatures of each of those records; the record, its hash
 * and the audit stay. The cursor moves in the same step, so a sweep that runs twice drops nothing twice and a
 * crash in between loses nothing.
 * ARGV: 1 prefix, 2 cutoff stream id (entries up to it, inclusive), 3 count, 4 now (ISO)
 * Returns {outbox entries passed, final records among them} (creation entries are passed over).
 */
export const DROP_PAYLOADS = script(`${RANK}
local p = ARGV[1]
local after = redis.call('GET', p .. 'retention:cursor') or '0-0'
local entries = redis.call('XRANGE', p .. 'outbox', '(' .. after, ARGV[2], 'COUNT', tonumber(ARGV[3]))
local finals = 0
for _, e in ipairs(entries) do
  local f = e[2]
  local id, status
  for i = 1, #f, 2 do
    if f[i] == 'id' then id = f[i + 1] elseif f[i] == 'status' then status = f[i + 1] end
  end
  if id and FINAL[status] then
    finals = finals + 1
    local key = p .. 'sub:' .. id
    if redis.call('HDEL', key, 'payload') == 1 then redis.call('HSET', key, 'payloadDroppedAt', ARGV[4]) end
  end
end
if #entries > 0 then redis.call('SET', p .. 'retention:cursor', entries[#entries][1]) end
return {#entries, finals}
`);
