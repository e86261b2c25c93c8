// Approval policy routes (issue 15): decisions on submissions awaiting approval, the list of what awaits,
// the policy in force and a dry run of it.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { evaluatePolicy, PolicyInvalid, validatePolicy } from '../../policy/index.ts';
import { decideApproval, listAwaiting, SubmissionRefused } from '../../submissions/index.ts';
import { type AppDeps, type AppEnv, need } from '../context.ts';
import { ApiError, errorResponses } from '../errors.ts';
import { SubmissionBody, SubmissionView } from '../schemas.ts';
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

const getPolicy = createRoute({
  method: 'get',
  path: '/wallet/v1/policy',
  operationId: 'getPolicy',
  tags: ['approvals'],
  summary: 'The approval policy in force (admin)',
  security,
  responses: {
    200: {
      description: 'The policy document and its version (null document: no policy, everything is allowed)',
      content: {
        'application/json': {
          schema: z.object({ version: z.number().int().nullable(), document: z.unknown().nullable() }),
        },
      },
    },
    ...errorResponses(401, 403),
  },
});

const putPolicy = createRoute({
  method: 'put',
  path: '/wallet/v1/policy',
  operationId: 'updatePolicy',
  tags: ['approvals'],
  summary: 'Replace the approval policy (unscoped admin); each change is a new numbered version',
  security,
  request: {
    body: { required: true, content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
  },
  responses: {
    200: {
      description: 'The new version',
      content: {
        'application/json': {
          schema: z.object({
            version: z.number().int(),
            at: z.string(),
            by: z.string(),
            document: z.unknown(),
          }),
        },
      },
    },
    ...errorResponses(400, 401, 403),
  },
});

const evaluate = createRoute({
  method: 'post',
  path: '/wallet/v1/policy/evaluate',
  operationId: 'evaluatePolicy',
  tags: ['approvals'],
  summary: 'Dry run: which rule matches a submission and what would happen (nothing is stored or signed)',
  security,
  request: { body: { required: true, content: { 'application/json': { schema: SubmissionBody } } } },
  responses: {
    200: {
      description: 'The decision',
      content: {
        'application/json': {
          schema: z.object({
            rule: z.string().nullable(),
            ruleIndex: z.number().int().nullable(),
            outcome: z.unknown(),
            outflows: z
              .array(
                z.object({ instrument: z.object({ admin: z.string(), id: z.string() }), amount: z.string() }),
              )
              .describe('what the acting parties send, per instrument (instruments are never summed)'),
            facts: z.unknown(),
          }),
        },
      },
    },
    ...errorResponses(400, 401, 403),
  },
});

export function approvalRoutes(deps: AppDeps) {
  return new OpenAPIHono<AppEnv>()
    .openapi(decide, async (c) => {
      const who = need(c, 'approve');
      const { id } = c.req.valid('param');
      const body = c.req.valid('json');
      const { record } = await decideApproval(
        {
          store: deps.store,
          sign: deps.accept.ports.sign,
          enqueue: deps.accept.enqueue,
          policy: deps.accept.policy,
          inspect: deps.accept.ports.inspect,
          metrics: deps.metrics,
          ...(deps.log ? { log: deps.log } : {}),
          ...(deps.accept.now ? { now: deps.accept.now } : {}),
        },
        who,
        id,
        body,
      );
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
    })
    .openapi(getPolicy, async (c) => {
      need(c, 'admin');
      const current = await deps.accept.policy?.current();
      return c.json({ version: current?.version ?? null, document: current?.document ?? null }, 200);
    })
    .openapi(putPolicy, async (c) => {
      const who = need(c, 'admin');
      if (who.party !== undefined) {
        throw new ApiError(
          403,
          'FORBIDDEN',
          'the policy covers every party: only an unscoped admin may change it',
        );
      }
      if (!deps.policies) throw new ApiError(404, 'NOT_FOUND', 'this wallet keeps no policy versions');
      let doc: ReturnType<typeof validatePolicy>;
      try {
        doc = validatePolicy(c.req.valid('json'));
      } catch (err) {
        if (err instanceof PolicyInvalid) throw new ApiError(400, 'POLICY_INVALID', err.message);
        throw err;
      }
      const v = await deps.policies.put(doc, who.subject);
      deps.log?.('info', 'policy changed', { version: v.version, by: who.subject });
      return c.json(v, 200);
    })
    .openapi(evaluate, async (c) => {
      const who = need(c, 'read');
      const body = c.req.valid('json');
      let facts: ReturnType<NonNullable<Awaited<ReturnType<AppDeps['accept']['ports']['inspect']>>['facts']>>;
      try {
        const tx = await deps.accept.ports.inspect(body.preparedTransaction, body.hashingSchemeVersion);
        if (!tx.facts) throw new Error('this wallet cannot read transaction facts');
        facts = tx.facts();
      } catch (err) {
        if (err instanceof SubmissionRefused) throw err; // busy or too large to decode (the inspection pool)
        const line = err instanceof Error ? (err.message.split('\n')[0] ?? '') : 'cannot decode';
        throw new SubmissionRefused(400, 'INVALID_PREPARED_TRANSACTION', `preparedTransaction: ${line}`);
      }
      if (who.party !== undefined && who.party !== facts.party) {
        throw new ApiError(403, 'PARTY_NOT_ALLOWED', 'this token may not evaluate for that party');
      }
      const current = await deps.accept.policy?.current();
      if (!current) {
        return c.json(
          { rule: null, ruleIndex: null, outcome: { action: 'allow' }, outflows: facts.outflows, facts },
          200,
        );
      }
      const d = await evaluatePolicy(current.document, facts, deps.accept.policy?.velocity);
      return c.json({ ...d, facts }, 200);
    });
}
