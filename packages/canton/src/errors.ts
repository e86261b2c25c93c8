/**
 * `QuillError`: the base of every boundary's error (ledger, transaction, signing, parties, store, API, CLI,
 * config). It carries a stable `code` that callers match on (never the message text), a one-line `message`
 * that holds no secret, and an optional `cause`. `walk` follows the cause chain, as viem's `BaseError` does,
 * so a boundary can ask "is a Redis failure somewhere under this?" without knowing who wrapped whom.
 *
 * This file is a leaf: it imports nothing of ours, and every folder may import it.
 */
export class QuillError<Code extends string = string> extends Error {
  override readonly name: string = 'QuillError';
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /**
   * The first error in the chain (this one, then each `cause`) for which `match` is true; without `match`,
   * the deepest error of the chain. Stops at cycles.
   */
  walk(match?: (err: unknown) => boolean): unknown {
    return walkCauses(this, match);
  }
}

/** `QuillError.walk` for any thrown value. */
export function walkCauses(err: unknown, match?: (err: unknown) => boolean): unknown {
  const seen = new Set<unknown>();
  let current: unknown = err;
  let last: unknown = err;
  while (current !== undefined && current !== null && !seen.has(current)) {
    if (match?.(current)) return current;
    seen.add(current);
    last = current;
    current = current instanceof Error ? current.cause : undefined;
  }
  return match ? undefined : last;
}

/** Control characters (C0, DEL, C1), bidi controls and line/paragraph separators, never echoed raw. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;
/** Longest caller-supplied value an error message repeats (ids are far shorter). */
const ECHO_MAX = 120;

/**
 * A caller-supplied value (an id, a path, a party) made safe to repeat in a message: each control or bidi
 * character becomes a visible `\u{…}` escape (so a log line or a terminal shows what was sent, not what it
 * would do), and anything longer than `max` characters is cut with a note of how much was left out.
 */
export function echo(value: string, max = ECHO_MAX): string {
  const chars = Array.from(value);
  const kept = chars.length > max ? chars.slice(0, max).join('') : value;
  const safe = kept.replace(UNSAFE, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`);
  return chars.length > max ? `${safe}…(${chars.length - max} more characters)` : safe;
}
