// Lua scripts that make every store change atomic: creation with its indexes, and monotonic transitions.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { STATUS_TABLE, SUBMISSION_STATUSES } from './record.ts';

export interface LuaScript {
  source: string;
  sha: string;
}

export function script(source: string): LuaScript {
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
 * The audit chain in Lua (Redis has no SHA-256 of its own): \`auditAppend(stream, fields, scriptFields)\` appends
 * an entry: \`fields\` are the caller's name/value items ending with \`chainDigest\` (their SHA-256, computed by
 * src/submissions/audit.ts \`auditFields\`), \`scriptFields\` those only the script knows. It adds \`chainPrev\` (the
 * hash of the entry before it, 64 zeros for the first) and \`chainHash\` = SHA-256(prev ‖ digest ‖ scriptFields),
 * the hashes as bytes (audit.ts \`auditLink\` computes the same), and moves \`<stream>:head\`, in the script of the
 * change it records. That message is two SHA-256 blocks for a typical entry: pure Lua costs ~70 µs a block, and
 * Redis runs nothing else meanwhile.
 */
export const AUDIT_LUA = `
local function sha256(msg)
  local band, bor, bxor, bnot, rshift, lshift, ror, tobit = bit.band, bit.bor, bit.bxor, bit.bnot, bit.rshift, bit.lshift, bit.ror, bit.tobit
  local K = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2 }
  local H = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 }
  local ml = #msg
  local bits = ml * 8
  msg = msg .. string.char(128) .. string.rep(string.char(0), (55 - ml) % 64)
    .. string.char(0, 0, 0, 0, band(rshift(bits, 24), 255), band(rshift(bits, 16), 255), band(rshift(bits, 8), 255), band(bits, 255))
  local w = {}
  for chunk = 1, #msg, 64 do
    for i = 0, 15 do
      local a, b, c, d = string.byte(msg, chunk + i * 4, chunk + i * 4 + 3)
      w[i] = bor(lshift(a, 24), lshift(b, 16), lshift(c, 8), d)
    end
    for i = 16, 63 do
      local x, y = w[i - 15], w[i - 2]
      local s0 = bxor(ror(x, 7), ror(x, 18), rshift(x, 3))
      local s1 = bxor(ror(y, 17), ror(y, 19), rshift(y, 10))
      w[i] = tobit(w[i - 16] + s0 + w[i - 7] + s1)
    end
    local a, b, c, d, e, f, g, h = H[1], H[2], H[3], H[4], H[5], H[6], H[7], H[8]
    for i = 0, 63 do
      local S1 = bxor(ror(e, 6), ror(e, 11), ror(e, 25))
      local ch = bxor(band(e, f), band(bnot(e), g))
      local t1 = tobit(h + S1 + ch + K[i + 1] + w[i])
      local S0 = bxor(ror(a, 2), ror(a, 13), ror(a, 22))
      local maj = bxor(band(a, b), band(a, c), band(b, c))
      local t2 = tobit(S0 + maj)
      h, g, f, e, d, c, b, a = g, f, e, tobit(d + t1), c, b, a, tobit(t1 + t2)
    end
    H[1], H[2], H[3], H[4] = tobit(H[1] + a), tobit(H[2] + b), tobit(H[3] + c), tobit(H[4] + d)
    H[5], H[6], H[7], H[8] = tobit(H[5] + e), tobit(H[6] + f), tobit(H[7] + g), tobit(H[8] + h)
  end
  local out = {}
  for i = 1, 8 do out[i] = bit.tohex(H[i], 8) end
  return table.concat(out)
end

local function hexBytes(hex)
  return (string.gsub(hex, '%x%x', function(c) return string.char(tonumber(c, 16)) end))
end

local function auditAppend(stream, fields, scriptFields)
  local head = redis.call('GET', stream .. ':head') or string.rep('0', 64)
  local parts = {}
  for i = 1, #scriptFields, 2 do
    parts[#parts + 1] = #scriptFields[i] .. ':' .. scriptFields[i] .. #scriptFields[i + 1] .. ':' .. scriptFields[i + 1]
  end
  local h = sha256(hexBytes(head) .. hexBytes(fields[#fields]) .. table.concat(parts, '\\n'))
  local entry = {}
  for i = 1, #fields do entry[#entry + 1] = fields[i] end
  for i = 1, #scriptFields do entry[#entry + 1] = scriptFields[i] end
  entry[#entry + 1] = 'chainPrev'
  entry[#entry + 1] = head
  entry[#entry + 1] = 'chainHash'
  entry[#entry + 1] = h
  redis.call('XADD', stream, '*', unpack(entry))
  redis.call('SET', stream .. ':head', h)
end
`;

/**
 * Creates a record unless its command id is already taken.
 * KEYS: 1 record, 2 command index, 3 seq counter, 4 all index, 5 party index, 6 status index,
 *       7 party+status index, 8 idempotency key ('' slot allowed), 9 audit stream
 * ARGV: 1 id, 2 record json, 3 payload json, 4 status, 5 hash hex, 6 idempotency value ('' = none),
 *       7 key prefix (for the replaced record's indexes), 8 n = number of outbox field/value items that follow
 *       (the created record's outbox entry, written when it is stored; 0 = none), 9..8+n those items,
 *       9+n.. the audit entry (audit.ts \`auditFields\`: its pairs, then chainDigest; the signature
 *       made for this request is logged whatever the outcome, with `stored` true or false; when false,
 *       `existingSubmission` names the record that holds the command id, so no audit line points nowhere)
 * Returns {1, id, seq} created, {0, existingId} taken by a live or same-hash record.
 * A command id whose record ended final but not committed (rejected, expired) with another hash is handed to
 * the new record.
 */
export const CREATE = script(`${RANK}${AUDIT_LUA}
local OUTN = tonumber(ARGV[8])
local function audit(stored, existing)
  if #ARGV <= 8 + OUTN then return end
  local entry = {}
  for i = 9 + OUTN, #ARGV do entry[#entry + 1] = ARGV[i] end
  local outcome = { 'stored', stored }
  if existing then
    outcome[3] = 'existingSubmission'
    outcome[4] = existing
  end
  auditAppend(KEYS[9], entry, outcome)
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
 *       8 n = number of outbox field/value items that follow (when the new status is announced), 9..8+n those,
 *       9+n.. an audit entry (audit.ts \`auditFields\`: an approval decision), appended to the chain when the write lands
 * Returns {1, newVersion} | {0, currentVersion} (conflict) | {-1, status} (terminal or backwards: refused)
 */
export const TRANSITION = script(`${RANK}${AUDIT_LUA}
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
local OUTN = tonumber(ARGV[8])
if ANNOUNCE[ARGV[2]] and old ~= ARGV[2] and OUTN > 0 then
  redis.call('XADD', ARGV[4] .. 'outbox', '*', unpack(ARGV, 9, 8 + OUTN))
end
if #ARGV > 8 + OUTN then
  local entry = {}
  for i = 9 + OUTN, #ARGV do entry[#entry + 1] = ARGV[i] end
  auditAppend(ARGV[4] .. 'audit', entry, {})
end
return {1, v}
`);

/**
 * Payload retention: follows the outbox (one entry per record that became final, in the order they did) up to
 * a cutoff, and drops the prepared transaction and signatures of each of those records; the record, its hash
 * and the audit stay. The cursor moves in the same step, so a sweep that runs twice drops nothing twice and a
 * crash in between loses nothing.
 * ARGV: 1 prefix, 2 cutoff stream id (entries up to it, inclusive), 3 count, 4 now (ISO)
 * Returns {outbox entries passed, payloads dropped}.
 */
export const DROP_PAYLOADS = script(`${RANK}
local p = ARGV[1]
local after = redis.call('GET', p .. 'retention:cursor') or '0-0'
local entries = redis.call('XRANGE', p .. 'outbox', '(' .. after, ARGV[2], 'COUNT', tonumber(ARGV[3]))
local dropped = 0
for _, e in ipairs(entries) do
  local f = e[2]
  local id, status
  for i = 1, #f, 2 do
    if f[i] == 'id' then id = f[i + 1] elseif f[i] == 'status' then status = f[i + 1] end
  end
  if id and FINAL[status] then
    local key = p .. 'sub:' .. id
    if redis.call('HDEL', key, 'payload') == 1 then
      redis.call('HSET', key, 'payloadDroppedAt', ARGV[4])
      dropped = dropped + 1
    end
  end
end
if #entries > 0 then redis.call('SET', p .. 'retention:cursor', entries[#entries][1]) end
return {#entries, dropped}
`);

/**
 * One audit entry appended to the chain, optionally with one hash field written in the same step (the signature
 * attached after an approval quorum).
 * KEYS: 1 audit stream, 2 a hash to write ('' slot allowed)
 * ARGV: 1 hash field ('' = none), 2 its value, 3.. the entry (audit.ts \`auditFields\`)
 */
export const AUDITED = script(`${AUDIT_LUA}
if ARGV[1] ~= '' then redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end
local entry = {}
for i = 3, #ARGV do entry[#entry + 1] = ARGV[i] end
auditAppend(KEYS[1], entry, {})
return 1
`);
