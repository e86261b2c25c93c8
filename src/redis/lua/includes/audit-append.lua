-- The audit chain (src/audit): Redis has no SHA-256 of its own, so this is one in Lua (checked against node:crypto).
-- auditAppend(stream, headKey, fields, scriptFields) appends an entry: `fields` are the caller's name/value items
-- ending with `chainDigest` (their SHA-256, computed by src/audit/chain.ts `auditFields`), `scriptFields` those only
-- the script knows. It adds `chainPrev` (the hash of the entry before it, 64 zeros for the first) and `chainHash` =
-- SHA-256(prev ‖ digest ‖ scriptFields), the hashes as bytes (chain.ts `auditLink` computes the same), and moves the
-- head, in the script of the change it records. That message is two SHA-256 blocks for a typical entry: pure Lua
-- costs ~70 µs a block, and Redis runs nothing else meanwhile.
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
