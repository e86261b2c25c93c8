// The external signer's page of a signature round: what the submission does (the sentence approvers read), the
// 32-byte hash to sign (hex and base64, copyable), the deadline, who signed and who is awaited, and a form to paste
// a signature made elsewhere (a hardware wallet, another custody system). The API verifies it against the key
// registered in the party's signing set; a refusal comes back beside the form.
import { allows } from '../../auth/index.ts';
import { answer } from '../client.ts';
import { PageError } from '../errors.ts';
import { apiMessage, type Ctx, formFields, must } from '../http.tsx';
import { Csrf, Empty, Facts, FormError, Id, Page, Status, Time } from '../ui.tsx';
import { ID } from './submissions.tsx';

/** The algorithms a holder may sign with, and the signature format each one's signatures are sent in. */
const ALGORITHMS = {
  SIGNING_ALGORITHM_SPEC_ED25519: 'SIGNATURE_FORMAT_CONCAT',
  SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256: 'SIGNATURE_FORMAT_DER',
  SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384: 'SIGNATURE_FORMAT_DER',
} as const;
type Algorithm = keyof typeof ALGORITHMS;

function notFound(): never {
  throw new PageError(404, 'No submission: it does not exist or is not visible to you.');
}

/** The page; `form`: what was posted and why it was refused. */
export async function signPage(c: Ctx, id: string, form?: { error: string; signedBy?: string }) {
  if (!ID.test(id)) notFound();
  const viewer = c.get('viewer');
  const res = await answer(c.get('api').wallet.v1.submissions[':id'].signatures.$get({ param: { id } }));
  const back = (
    <p>
      <a href={`/console/submissions/${id}`}>Back to the submission</a>
    </p>
  );
  if (res.status === 409) {
    return c.html(
      <Page title="Sign a submission" viewer={viewer} active="/console/submissions">
        <Empty>No signature round: {apiMessage(res)}.</Empty>
        <FormError message={form?.error} />
        {back}
      </Page>,
      form ? 400 : 200,
    );
  }
  const r = must(res, 'submission');
  const waiting = r.status === 'awaiting_signatures';
  const signable = waiting && allows(viewer.principal.role, 'approve') && r.awaiting.length > 0;
  const flash = c.req.query('signed');
  return c.html(
    <Page title="Sign a submission" viewer={viewer} active="/console/submissions">
      {flash && (
        <p class="flash" role="status" data-testid="flash">
          {flash === 'queued'
            ? 'Your signature was counted: the threshold is reached and the submission is queued for the ledger.'
            : flash === 'again'
              ? 'This key had already signed: it is counted once.'
              : `Your signature was counted: ${r.signed} of ${r.threshold}.`}
        </p>
      )}
      <p class="sentence" data-testid="sentence">
        {r.preview ??
          'What it does cannot be shown: its stored transaction is gone or no longer matches its hash.'}
      </p>
      <Facts
        rows={[
          ['Submission', <Id value={id} href={`/console/submissions/${id}`} full />],
          ['Status', <Status status={r.status} />],
          [
            'Signatures',
            <span data-testid="signed">
              {r.signed} of {r.threshold}
            </span>,
          ],
          ['Deadline', <Time at={r.deadline} />],
          ['Hash to sign (hex)', <Id value={r.hash} full testid="hash-hex" />],
          ['Hash to sign (base64)', <Id value={r.hashBase64} full testid="hash-base64" />],
        ]}
      />
      <section aria-labelledby="h-keys">
        <h2 id="h-keys">Keys of the signing set</h2>
        <table data-testid="round-keys">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Label</th>
              <th scope="col">Held by</th>
              <th scope="col">Signed</th>
            </tr>
          </thead>
          <tbody>
            {r.keys.map((k) => (
              <tr>
                <td>
                  <Id value={k.fingerprint} />
                </td>
                <td>{k.label ?? '—'}</td>
                <td>{k.holder === 'quill' ? 'Quill' : 'external holder'}</td>
                <td>{k.signedAt ? <Time at={k.signedAt} /> : 'awaited'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {signable ? (
        <section aria-labelledby="h-sign">
          <h2 id="h-sign">Post a signature</h2>
          <p>
            Sign the 32 bytes above (not their hex text) with the key you hold, and paste the signature in
            base64: Ed25519 as its 64 bytes, ECDSA as DER.
          </p>
          <form method="post" action={`/console/submissions/${id}/signatures`} aria-label={`Sign ${id}`}>
            <Csrf viewer={viewer} />
            <label>
              Signed by
              <select name="signedBy" required>
                {r.awaiting.map((k) => (
                  <option value={k.fingerprint} selected={form?.signedBy === k.fingerprint}>
                    {k.label ? `${k.label} — ` : ''}
                    {k.fingerprint.slice(0, 20)}…{k.holder === 'quill' ? ' (Quill)' : ''}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Algorithm
              <select name="algorithm" required>
                {Object.keys(ALGORITHMS).map((a) => (
                  <option value={a}>{a.replace('SIGNING_ALGORITHM_SPEC_', '')}</option>
                ))}
              </select>
            </label>
            <label>
              Signature (base64)
              <textarea
                name="signature"
                required
                rows={3}
                maxlength={400}
                spellcheck={false}
                autocomplete="off"
                data-testid="signature-input"
              />
            </label>
            <button type="submit">Post the signature</button>
          </form>
          <FormError message={form?.error} />
        </section>
      ) : (
        <>
          <Empty>
            {waiting
              ? r.awaiting.length === 0
                ? 'Every key has signed.'
                : 'Posting a signature needs the approve role.'
              : `Nothing to sign: it is ${r.status}.`}
          </Empty>
          <FormError message={form?.error} />
        </>
      )}
      {back}
    </Page>,
    form ? 400 : 200,
  );
}

/** The form's post: the API verifies and counts it; refused, the page comes back with why. */
export async function postSignatureForm(c: Ctx, id: string) {
  if (!ID.test(id)) notFound();
  const f = await formFields(c);
  const algorithm = f.algorithm as Algorithm;
  const signedBy = f.signedBy ?? '';
  if (!(algorithm in ALGORITHMS)) return signPage(c, id, { error: 'Choose an algorithm.', signedBy });
  const signature = (f.signature ?? '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature) || signature.length > 400)
    return signPage(c, id, { error: 'Signature: standard base64, at most 400 characters.', signedBy });
  const res = await answer(
    c.get('api').wallet.v1.submissions[':id'].signatures.$post({
      param: { id },
      json: {
        signature: { format: ALGORITHMS[algorithm], signature, signedBy, signingAlgorithmSpec: algorithm },
      },
    }),
  );
  if (res.status >= 400 && res.status < 500 && res.status !== 404)
    return signPage(c, id, { error: apiMessage(res), signedBy });
  const done = must(res, 'submission');
  const outcome = done.queued ? 'queued' : done.counted ? 'counted' : 'again';
  return c.redirect(`/console/submissions/${id}/sign?signed=${outcome}`, 303);
}
