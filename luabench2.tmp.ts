import { Redis } from 'ioredis';
const r = new Redis(6390);
const SHA = `
local band, bor, bxor, bnot, rshift, lshift, ror, tobit = bit.band, bit.bor, bit.bxor, bit.bnot, bit.rshift, bit.lshift, bit.ror, bit.tobit
local byte, char, rep = string.byte, string.char, string.rep
local K = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2 }
local w = {}
local function sha256(msg)
  local H1, H2, H3, H4, H5, H6, H7, H8 = 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
  local ml = #msg
  local bits = ml * 8
  msg = msg .. char(128) .. rep(char(0), (55 - ml) % 64)
    .. char(0, 0, 0, 0, band(rshift(bits, 24), 255), band(rshift(bits, 16), 255), band(rshift(bits, 8), 255), band(bits, 255))
  for chunk = 1, #msg, 64 do
    for i = 0, 15 do
      local a, b, c, d = byte(msg, chunk + i * 4, chunk + i * 4 + 3)
      w[i] = bor(lshift(a, 24), lshift(b, 16), lshift(c, 8), d)
    end
    for i = 16, 63 do
      local x, y = w[i - 15], w[i - 2]
      w[i] = tobit(w[i - 16] + bxor(ror(x, 7), ror(x, 18), rshift(x, 3)) + w[i - 7] + bxor(ror(y, 17), ror(y, 19), rshift(y, 10)))
    end
    local a, b, c, d, e, f, g, h = H1, H2, H3, H4, H5, H6, H7, H8
    for i = 0, 63 do
      local t1 = h + bxor(ror(e, 6), ror(e, 11), ror(e, 25)) + bxor(band(e, f), band(bnot(e), g)) + K[i + 1] + w[i]
      local t2 = bxor(ror(a, 2), ror(a, 13), ror(a, 22)) + bxor(band(a, b), band(a, c), band(b, c))
      h, g, f, e, d, c, b, a = g, f, e, tobit(d + t1), c, b, a, tobit(t1 + t2)
    end
    H1, H2, H3, H4 = tobit(H1 + a), tobit(H2 + b), tobit(H3 + c), tobit(H4 + d)
    H5, H6, H7, H8 = tobit(H5 + e), tobit(H6 + f), tobit(H7 + g), tobit(H8 + h)
  end
  local tohex = bit.tohex
  return tohex(H1, 8) .. tohex(H2, 8) .. tohex(H3, 8) .. tohex(H4, 8) .. tohex(H5, 8) .. tohex(H6, 8) .. tohex(H7, 8) .. tohex(H8, 8)
end
`;
const src = (n: number) => `${SHA}\nlocal m = string.rep('a', ${n})\nlocal x\nfor i=1,100 do x = sha256(m) end\nreturn x`;
for (const n of [0, 55, 64, 119, 200, 500]) {
  await r.eval(src(n), 0);
  const t = performance.now(); const x = await r.eval(src(n), 0); console.log(n, 'bytes', ((performance.now() - t) / 100 * 1000).toFixed(0), 'us per sha256', x === (await import('node:crypto')).createHash('sha256').update('a'.repeat(n)).digest('hex'));
}
r.disconnect();
