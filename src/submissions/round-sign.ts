// Quill's own signatures in a round: every active key Quill holds in the party's set signs the recomputed hash,
// each through the verifying signer (the accept path's `sign` port). A key that cannot sign (disabled, gone from
// the key store) is skipped: the round may still reach its threshold with the other keys and external holders.
import type { Signature } from '@quill/canton/ledger';
import type { AcceptPorts } from './accept/types.ts';
import { SubmissionRefused } from './errors.ts';
import { inSpan } from './tracing.ts';

export interface QuillSigned {
  signatures: Signature[];
  /** Why keys that did not sign could not, in the set's order (a disabled key's KEY_DISABLED, …). */
  refusals: SubmissionRefused[];
}

/** Signs `hash` with each of `fingerprints` (those already signed left out by the caller). */
export async function signWithQuillKeys(
  sign: AcceptPorts['sign'],
  fingerprints: readonly string[],
  hash: Uint8Array,
  span: Record<string, string | boolean> = {},
): Promise<QuillSigned> {
  const out: QuillSigned = { signatures: [], refusals: [] };
  for (const fp of fingerprints) {
    try {
      out.signatures.push(
        await inSpan('quill.sign', { 'quill.key_fingerprint': fp, ...span }, () => sign(fp, hash)),
      );
    } catch (err) {
      // Only a key that cannot sign is skipped; anything else (a backend failing) is the caller's failure.
      if (err instanceof SubmissionRefused && (err.code === 'KEY_DISABLED' || err.code === 'UNKNOWN_KEY')) {
        out.refusals.push(err);
        continue;
      }
      throw err;
    }
  }
  return out;
}
