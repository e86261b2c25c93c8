// Party ids of external parties: `<hint>::<fingerprint>`, the hint validated as the participant does
// (a Daml-LF party string without the `::` delimiter, at most 185 characters).
import { isFingerprint } from '../signing/index.ts';

const HINT_CHARS = /^[A-Za-z0-9:_\- ]+$/;

/** Why a party hint would be refused, or undefined when it is fine. */
export function partyHintProblem(hint: unknown): string | undefined {
  if (typeof hint !== 'string' || hint.length === 0) return 'the party hint must be non-empty';
  if (hint.length > 185) return 'the party hint must be at most 185 characters';
  if (!HINT_CHARS.test(hint)) return 'the party hint may contain only letters, digits, space, :, - and _';
  if (hint.includes('::')) return 'the party hint must not contain "::"';
  // Stricter than the participant: `a:` would give `a:::1220…`, which does not split back into hint and key.
  if (hint.endsWith(':')) return 'the party hint must not end with ":"';
  return undefined;
}

export function partyIdOf(hint: string, fingerprint: string): string {
  return `${hint}::${fingerprint}`;
}

/** Splits `hint::fingerprint`; undefined when it is not such an id. */
export function parsePartyId(partyId: string): { hint: string; fingerprint: string } | undefined {
  const at = partyId.lastIndexOf('::');
  if (at <= 0) return undefined;
  const hint = partyId.slice(0, at);
  const fingerprint = partyId.slice(at + 2);
  if (partyHintProblem(hint) || !isFingerprint(fingerprint)) return undefined;
  return { hint, fingerprint };
}
