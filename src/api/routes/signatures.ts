// Signature rounds: what an external key holder of a party's signing set signs (GET) and where it posts its
// signature (POST). Party-scoped like the other submission routes. Posting needs the approve role (or admin): a
// holder is an API client with its own token, and adding a signature is an authorization, like an approval.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { SignatureFormat, SigningAlgorithmSpec } from '@quill/canton/ledger';
import { postSignature, type SignatureDeps, signatureRequest } from '../../submissions/index.ts';
import { type AppDeps, type AppEnv, need } from '../context.ts';
import { errorResponses } from '../errors.ts';
import { SubmissionStatusView, SubmissionView } from '../schemas.ts';
import { security } from './shared.ts';

const Params = z.object({ id: z.string().min(1).max(100) });

const RoundKeyView = z
  .object({
    fingerprint: z.string(),
    label: z.string().nullable(),
    holder: z.enum(['quill', 'external']),
  })
  .openapi('SignatureRoundKey');

const SignatureRequestView = z
  .object({
    status: SubmissionStatusView,
    threshold: z.number().int().openapi({ description: 'how many distinct keys of the set must sign (M)' }),
    signed: z.number().int().openapi({ description: 'how many have' }),
    awaiting: z.array(RoundKeyView).openapi({ description: 'the keys of the set that have not signed' }),
    keys: z
      .array(RoundKeyView.extend({ signedAt: z.string().nullable() }))
      .openapi({ description: "the set's keys, who signed and when" }),
    hash: z
      .string()
      .openapi({ description: 'lowercase hex of the 32 bytes to sign (the prepared transaction hash)' }),
    hashBase64: z.string().openapi({ description: 'the same 32 bytes, standard base64' }),
    preview: z.string().nullable().openapi({
      description: 'what it does, in one sentence per asset movement, read from the decoded transaction',
    }),
    summary: z.array(z.string()).nullable().openapi({ description: 'the same sentences, one per item' }),
    deadline: z
      .string()
      .nullable()
      .openapi({ description: 'signatures after this time are refused and the record ends expired' }),
  })
  .openapi('SignatureRequest');

const SignatureBody = z
  .object({
    signature: z
      .object({
        format: SignatureFormat,
        signature: z
          .string()
          .min(1)
          .max(400)
          .openapi({ description: 'standard base64 of the signature bytes' }),
        signedBy: z
          .string()
          .min(1)
          .max(100)
          .openapi({ description: "the signing key's fingerprint (1220…)" }),
        signingAlgorithmSpec: SigningAlgorithmSpec,
      })
      .strict(),
  })
  .strict()
  .openapi('SignatureSubmission');

const SignatureAnswer = z
  .object({
    counted: z.boolean().openapi({ description: 'false when this key had already signed (counted once)' }),
    queued: z
      .boolean()
      .openapi({ description: 'true when this signature reached the threshold and queued it' }),
    submission: SubmissionView,
  })
  .openapi('SignatureResult');

const getRequest = createRoute({
  method: 'get',
  path: '/wallet/v1/submissions/{id}/signatures',
  operationId: 'getSignatureRound',
  tags: ['signatures'],
  summary: "A submission's signature round: the hash to sign, what it does, who signed and who is awaited",
  security,
  request: { params: Params },
  responses: {
    200: {
      description: 'The round (a round past its deadline is ended expired first)',
      content: { 'application/json': { schema: SignatureRequestView } },
    },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

const post = createRoute({
  method: 'post',
  path: '/wallet/v1/submissions/{id}/signatures',
  operationId: 'postSignature',
  tags: ['signatures'],
  summary:
    "An external key holder's signature over the submission's hash (verified against its registered key)",
  description:
    "Verified against the public key registered for `signedBy` in the party's signing set, over the 32-byte hash. " +
    'Refused 422 NOT_A_SIGNER (not a key of the set), 422 BAD_SIGNATURE, 409 NOT_AWAITING_SIGNATURES, 409 ' +
    'ROUND_EXPIRED. A key that already signed is answered 200 (counted once). The signature that reaches the ' +
    'threshold queues the submission.',
  security,
  request: {
    params: Params,
    body: { required: true, content: { 'application/json': { schema: SignatureBody } } },
  },
  responses: {
    200: {
      description: 'Counted (or already counted); the record as it stands',
      content: { 'application/json': { schema: SignatureAnswer } },
    },
    ...errorResponses(400, 401, 403, 404, 409, 422),
  },
});

/** What the routes need, from the app's parts. */
export function signatureDeps(deps: AppDeps): SignatureDeps {
  const { ports } = deps.accept;
  return {
    store: deps.store,
    enqueue: deps.accept.enqueue,
    signingSet: ports.signingSet?.bind(ports),
    inspect: ports.inspect,
    metrics: deps.metrics,
    ...(deps.accept.now ? { now: deps.accept.now } : {}),
  };
}

export function signatureRoutes(deps: AppDeps) {
  return new OpenAPIHono<AppEnv>()
    .openapi(getRequest, async (c) => {
      const who = need(c, 'read');
      const answer = await signatureRequest(signatureDeps(deps), who, c.req.valid('param').id);
      return c.json(answer, 200);
    })
    .openapi(post, async (c) => {
      const who = need(c, 'approve');
      const { signature } = c.req.valid('json');
      const result = await postSignature(signatureDeps(deps), who, c.req.valid('param').id, signature);
      deps.log?.('info', 'signature posted', {
        submission: result.record.id,
        signedBy: signature.signedBy,
        actor: who.subject,
        counted: result.counted,
        queued: result.queued,
      });
      return c.json({ counted: result.counted, queued: result.queued, submission: result.record }, 200);
    });
}
