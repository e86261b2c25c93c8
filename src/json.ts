// Canonical JSON: keys sorted at every level and undefined members dropped, so key order never changes a
// fingerprint or a comparison; and the bound on how deeply a JSON body may nest. A leaf: it imports nothing of
// ours.
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

// How deeply a JSON body may nest is bounded before anything parses or walks it: JSON.parse, zod and the request
// fingerprint all recurse, and 5,000 levels of `[` overflowed the stack (a 500, or a silent 503 in a batch).

/** Deeper than anything the API's shapes need (a transaction format is about 8 levels). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `text` nests arrays/objects deeper than `max`, in one pass that jumps over string contents (`indexOf`
 * to the next quote: a request is mostly its base64 transaction, one long string).
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // To the quote that closes the string: one after an even run of backslashes (an odd run escapes it).
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q < 0) return false;
        let b = q - 1;
        while (text.charCodeAt(b) === 92) b--;
        i = q;
        if ((q - 1 - b) % 2 === 0) break;
      }
    } else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}
