// Approval routes (issue 15): decisions on submissions awaiting approval and the list of what awaits (the policy
// itself: routes/policy.ts).
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { type ApprovalDeps, decideApproval, listAwaiting } from '../../submissions/index.ts';
import { type AppDeps, type AppEnv, need } from '../context.ts';
import { ApiError, errorResponses } from '../errors.ts';
import { SubmissionView } from '../schemas.ts';
import { security } from './shared.ts';

const ApprovalBody = z
  .object({
    decision: z.enum(['approve', 'reject']),
    hash: z
      .string()
      .min(1)
      .max(200)
      .openapi({ description: 'the prepared transaction hash the approver saw' }),
    reason: z.string().max(500).optional().openapi({
      description:
        'why: required (non-blank) for a rejection, which is refused 400 REASON_REQUIRED without one; optional for an approval',
    }),
  })
  .strict()
  .openapi('ApprovalRequest');

const decide = createRoute({
  method: 'post',
  path: '/wallet/v1/submissions/{id}/approvals',
  operationId: 'decideApproval',
  tags: ['approvals'],
  summary: 'Approve or reject a submission awaiting approval (bound to its hash)',
  security,
  request: {
    params: z.object({ id: z.string().min(1).max(100) }),
    body: { required: true, content: { 'application/json': { schema: ApprovalBody } } },
  },
  responses: {
    200: {
      description: 'The record after this decision (queued when it reached the quorum)',
      content: { 'application/json': { schema: SubmissionView } },
    },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

const AwaitingItem = SubmissionView.extend({
  keyStatus: z
    .enum(['active', 'disabled', 'missing'])
    .nullable()
    .openapi({
      description:
        "the status of the key that would sign it: approving a disabled or missing key's submission cannot sign it " +
        '(null: this process has no key store)',
    }),
}).openapi('AwaitingApproval');

const awaiting = createRoute({
  method: 'get',
  path: '/wallet/v1/approvals',
  operationId: 'listApprovals',
  tags: ['approvals'],
  summary: 'Submissions awaiting approval, oldest first',
  security,
  request: { query: z.object({ party: z.string().min(1).max(512).optional() }) },
  responses: {
    200: {
      description: 'What awaits approval',
      content: { 'application/json': { schema: z.object({ items: z.array(AwaitingItem) }) } },
    },
    ...errorResponses(400, 401, 403),
  },
});

/** What deciding and reviewing approvals needs, from the app's parts (the policy routes review on a change). */
export function approvalDeps(deps: AppDeps): ApprovalDeps {
  return {
    store: deps.store,
    sign: deps.accept.ports.sign,
    enqueue: deps.accept.enqueue,
    policy: deps.accept.policy,
    inspect: deps.accept.ports.inspect,
    metrics: deps.metrics,
    ...(deps.log ? { log: deps.log } : {}),
    ...(deps.accept.now ? { now: deps.accept.now } : {}),
  };
}

export function approvalRoutes(deps: AppDeps) {
  return new OpenAPIHono<AppEnv>()
    .openapi(decide, async (c) => {
      const who = need(c, 'approve');
      const { id } = c.req.valid('param');
      const body = c.req.valid('json');
      const { record } = await decideApproval(approvalDeps(deps), who, id, body);
      return c.json(record, 200);
    })
    .openapi(awaiting, async (c) => {
      const who = need(c, 'read');
      const { party } = c.req.valid('query');
      if (who.party !== undefined && party !== undefined && party !== who.party) {
        throw new ApiError(403, 'PARTY_NOT_ALLOWED', 'this token may only list its own party');
      }
      const items = await listAwaiting(
        { store: deps.store, ...(deps.accept.now ? { now: deps.accept.now } : {}) },
        who,
        party,
      );
      // Each key's status once: a key file that cannot be read now leaves it unknown (null), not the list failed.
      const status = new Map<string, 'active' | 'disabled' | 'missing' | null>();
      for (const fp of new Set(items.map((r) => r.keyFingerprint))) {
        const key = deps.keys ? await deps.keys.get(fp).catch(() => null) : null;
        status.set(fp, key === null ? null : (key?.status ?? 'missing'));
      }
      return c.json(
        { items: items.map((r) => ({ ...r, keyStatus: status.get(r.keyFingerprint) ?? null })) },
        200,
      );
    });
}
