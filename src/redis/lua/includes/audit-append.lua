-- The audit chain (src/audit): Redis has no SHA-256 of its own, so this is one in Lua (checked against node:crypto).
-- auditAppend(stream, headKey, fields, scriptFields) appends an entry: `fields` are the caller's name/value items
-- ending with `chainDigest` (their SHA-256, computed by src/audit/chain.ts `auditFields`), `scriptFields` those only
-- the script knows. It adds `chainPrev` (the hash of the entry before it, 64 zeros for the first) and `chainHash` =
-- SHA-256(prev ‖ digest ‖ scriptFields), the hashes as bytes (chain.ts `auditLink` computes the same), and moves the
-- head, in the script of the change it records. That message is two SHA-256 blocks for a typical entry: pure Lua
-- costs ~40 µs a block, and Redis runs nothing else meanwhile. Sums are kept below 2^53 and reduced with `% 2^32`
-- (the VM's arithmetic) rather than bit.tobit calls; bit ops take any such number modulo 2^32. Ch and Maj use the
-- forms with fewest calls (Maj reuses the previous round's a xor b as this round's b xor c).
local function sha256(msg)
  local band, bxor, ror, rshift = bit.band, bit.bxor, bit.ror, bit.rshift
  local K = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2 }
  local H1, H2, H3, H4, H5, H6, H7, H8 =
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
  local M = 4294967296
  local ml = #msg
  local bits = ml * 8
  msg = msg .. '\128' .. string.rep('\0', (55 - ml) % 64) .. '\0\0\0\0'
    .. string.char(band(rshift(bits, 24), 255), band(rshift(bits, 16), 255), band(rshift(bits, 8), 255), band(bits, 255))
  local w = {}
  local byte = string.byte
  for chunk = 1, #msg, 64 do
    for i = 1, 16 do
      local p = chunk + i * 4 - 4
      local a, b, c, d = byte(msg, p, p + 3)
      w[i] = ((a * 256 + b) * 256 + c) * 256 + d
    end
    for i = 17, 64 do
      local x, y = w[i - 15], w[i - 2]
      w[i] = (w[i - 16] + bxor(ror(x, 7), ror(x, 18), rshift(x, 3)) + w[i - 7]
        + bxor(ror(y, 17), ror(y, 19), rshift(y, 10))) % M
    end
    local a, b, c, d, e, f, g, h = H1, H2, H3, H4, H5, H6, H7, H8
    local bc = bxor(b, c)
    for i = 1, 64 do
      local t1 = h + bxor(ror(e, 6), ror(e, 11), ror(e, 25)) + bxor(g, band(e, bxor(f, g))) + K[i] + w[i]
      local ab = bxor(a, b)
      local t2 = bxor(ror(a, 2), ror(a, 13), ror(a, 22)) + bxor(band(ab, bc), b)
      bc = ab
      h, g, f, e, d, c, b, a = g, f, e, (d + t1) % M, c, b, a, (t1 + t2) % M
    end
    H1, H2, H3, H4 = (H1 + a) % M, (H2 + b) % M, (H3 + c) % M, (H4 + d) % M
    H5, H6, H7, H8 = (H5 + e) % M, (H6 + f) % M, (H7 + g) % M, (H8 + h) % M
  end
  local tohex = bit.tohex
  return tohex(H1, 8) .. tohex(H2, 8) .. tohex(H3, 8) .. tohex(H4, 8) .. tohex(H5, 8) .. tohex(H6, 8)
    .. tohex(H7, 8) .. tohex(H8, 8)
end
-- A hash's hex as its 32 bytes, 8 hex digits at a time.
local function hexBytes(hex)
  local out = {}
  for i = 1, #hex, 8 do
    local v = tonumber(string.sub(hex, i, i + 7), 16)
    out[#out + 1] = string.char(math.floor(v / 16777216), math.floor(v / 65536) % 256, math.floor(v / 256) % 256, v % 256)
  end
  return table.concat(out)
end

local function auditAppend(stream, headKey, fields, scriptFields)
  local head = redis.call('GET', headKey) or string.rep('0', 64)
  local parts = {}
  for i = 1, #scriptFields, 2 do
    parts[#parts + 1] = #scriptFields[i] .. ':' .. scriptFields[i] .. #scriptFields[i + 1] .. ':' .. scriptFields[i + 1]
  end
  local h = sha256(hexBytes(head) .. hexBytes(fields[#fields]) .. table.concat(parts, '\n'))
  local entry = {}
  for i = 1, #fields do entry[#entry + 1] = fields[i] end
  for i = 1, #scriptFields do entry[#entry + 1] = scriptFields[i] end
  entry[#entry + 1] = 'chainPrev'
  entry[#entry + 1] = head
  entry[#entry + 1] = 'chainHash'
  entry[#entry + 1] = h
  redis.call('XADD', stream, '*', unpack(entry))
  redis.call('SET', headKey, h)
end
