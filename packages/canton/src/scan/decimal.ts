/** Exact arithmetic on the feed's 10-digit decimal strings: scaled bigints, never floats. */
const SCALE = 10n ** 10n;
const DECIMAL = /^(-?)(\d{1,28})(?:\.(\d{1,10}))?$/;

/** `"-100.5450000000"` → -1005450000000n (units of 1e-10). Throws on anything else. */
export function parseDecimal10(text: string): bigint {
  const m = DECIMAL.exec(text);
  if (!m)
    throw new Error(`not a decimal with at most 10 fractional digits: ${JSON.stringify(text.slice(0, 50))}`);
  const units = BigInt(m[2] ?? '0') * SCALE + BigInt((m[3] ?? '').padEnd(10, '0'));
  return m[1] === '-' ? -units : units;
}

/** -1005450000000n → `"-100.5450000000"` (always 10 fractional digits, like the server). */
export function formatDecimal10(units: bigint): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const whole = abs / SCALE;
  const frac = (abs % SCALE).toString().padStart(10, '0');
  return `${negative ? '-' : ''}${whole}.${frac}`;
}
