// Exact decimal arithmetic for policy amounts: Daml Numeric strings compared and summed as scaled bigints,
// never as floats ("100.0" and "100.0000000000" are equal; "0.1" + "0.2" is exactly "0.3").

const DECIMAL = /^-?\d{1,38}(\.\d{1,37})?$/;

export interface Scaled {
  /** The value times 10^scale. */
  units: bigint;
  scale: number;
}

export function isDecimal(text: string): boolean {
  return DECIMAL.test(text);
}

export function parseDecimal(text: string): Scaled {
  if (!DECIMAL.test(text)) throw new RangeError(`not a decimal: ${text.slice(0, 40)}`);
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const [whole = '0', frac = ''] = body.split('.');
  const units = BigInt(whole + frac);
  return { units: negative ? -units : units, scale: frac.length };
}

function rescale(a: Scaled, scale: number): bigint {
  return a.units * 10n ** BigInt(scale - a.scale);
}

/** -1, 0 or 1, exactly. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  const scale = Math.max(x.scale, y.scale);
  const d = rescale(x, scale) - rescale(y, scale);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

export function formatDecimal(v: Scaled): string {
  const negative = v.units < 0n;
  const digits = (negative ? -v.units : v.units).toString().padStart(v.scale + 1, '0');
  const whole = digits.slice(0, digits.length - v.scale);
  const frac = digits.slice(digits.length - v.scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** The exact sum, in the shortest form ("0" for none). */
export function sumDecimals(values: readonly string[]): string {
  const parsed = values.map(parseDecimal);
  const scale = Math.max(0, ...parsed.map((p) => p.scale));
  let units = 0n;
  for (const p of parsed) units += rescale(p, scale);
  return formatDecimal({ units, scale });
}

/** a − b, exactly, in the shortest form. */
export function subtractDecimals(a: string, b: string): string {
  const neg = b.startsWith('-') ? b.slice(1) : `-${b}`;
  return sumDecimals([a, neg]);
}
