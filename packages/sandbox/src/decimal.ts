/**
 * Coin amounts: Daml `Decimal` (Numeric 10) as bigint fixed-point with 10 fractional digits, printed with
 * exactly 10 digits as the activity feed and the coin templates do. Never a JS number.
 */
const SCALE = 10_000_000_000n;
const INPUT = /^(-?)(\d{1,28})(?:\.(\d{1,10}))?$/;

/** Parses `-?\d{1,28}(\.\d{1,10})?` into units of 1e-10; undefined when malformed. */
export function parseAmount(text: unknown): bigint | undefined {
  if (typeof text !== 'string') return undefined;
  const m = INPUT.exec(text);
  if (!m) return undefined;
  const units = BigInt(m[2] ?? '0') * SCALE + BigInt((m[3] ?? '').padEnd(10, '0') || '0');
  return m[1] === '-' ? -units : units;
}

/** Prints units of 1e-10 as `-?\d+\.\d{10}`. */
export function formatAmount(units: bigint): string {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const int = abs / SCALE;
  const frac = (abs % SCALE).toString().padStart(10, '0');
  return `${neg ? '-' : ''}${int}.${frac}`;
}
