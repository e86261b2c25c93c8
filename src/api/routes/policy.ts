// The approval policy's routes: the version in force and its history, a change (a new version at once, or a
// proposal while the policy is governed), the proposals and their decisions, and a dry run. A version that takes
// effect reviews every submission awaiting approval under it at once (src/submissions reviewAwaiting).
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import {
  evaluatePolicy,
  governanceOf,
  PolicyInvalid,
  type PolicyProposal,
  type PolicyVersion,
  policyDiff,
  policyHash,
  validatePolicy,
} from '../../policy/index.ts';
import { reviewAwaiting, SubmissionRefused } from '../../submissions/index.ts';
import { type AppDeps, type AppEnv, need } from '../context.ts';
import { ApiError, errorResponses } from '../errors.ts';
import { SubmissionBody } from '../schemas.ts';
import { approvalDeps } from './approvals.ts';
import { json, security, unscopedAdmin } from './shared.ts';

const UNSCOPED = 'the policy covers every party: only an unscoped admin may change it';

const Version = z
  .object({
    version: z.number().int(),
    at: z.string(),
    by: z.string(),
    document: z.unknown(),
    documentHash: z.string().openapi({ description: "SHA-256 (hex) of the document's canonical JSON" }),
  })
  .openapi('PolicyVersion');

const Review = z
  .object({ rejected: z.number().int(), signed: z.number().int(), waiting: z.number().int() })
  .openapi('AwaitingReview', {
    description:
      'What the new version did to the submissions awaiting approval: ended (denied), signed (its requirement met), still waiting',
  });

const Change = z
  .object({
    path: z.string().openapi({ example: 'rules.big-payments.quorum' }),
    change: z.enum(['added', 'removed', 'changed', 'moved']),
    before: z.unknown().optional(),
    after: z.unknown().optional(),
  })
  .openapi('PolicyChange');

const Proposal = z
  .object({
    id: z.string(),
    status: z.enum(['pending', 'applied', 'rejected', 'superseded', 'expired']),
    documentHash: z.string(),
    document: z.unknown(),
    baseVersion: z.number().int().openapi({ description: 'the version it was proposed against (0: none)' }),
    proposedBy: z.string(),
    proposedAt: z.string(),
    expiresAt: z.string(),
    quorum: z.number().int(),
    group: z.string(),
    decisions: z.array(
      z.object({
        subject: z.string(),
        decision: z.enum(['approve', 'reject']),
        reason: z.string().nullable(),
        at: z.string(),
      }),
    ),
    appliedVersion: z.number().int().optional(),
    closedAt: z.string().optional(),
    closedReason: z.string().optional(),
    diff: z.array(Change).openapi({ description: 'what it changes from its base version' }),
  })
  .openapi('PolicyProposal');

const ProposalDecision = z
  .object({
    decision: z.enum(['approve', 'reject']),
    hash: z.string().min(1).max(200).openapi({ description: 'the documentHash the admin reviewed' }),
    reason: z.string().max(500).optional(),
  })
  .strict()
  .openapi('PolicyProposalDecision');

const ProposalId = z.object({ id: z.string().min(1).max(100) });

const getPolicy = createRoute({
  method: 'get',
  path: '/wallet/v1/policy',
  operationId: 'getPolicy',
  tags: ['policy'],
  summary: 'The approval policy in force (admin)',
  security,
  responses: {
    200: json(
      z.object({
        version: z.number().int().nullable(),
        document: z.unknown().nullable(),
        documentHash: z.string().nullable(),
      }),
      'The policy document, its version and hash (nulls: no policy, everything is allowed)',
    ),
    ...errorResponses(401, 403),
  },
});

const putPolicy = createRoute({
  method: 'put',
  path: '/wallet/v1/policy',
  operationId: 'updatePolicy',
  tags: ['policy'],
  summary:
    'Change the approval policy (unscoped admin): a new version at once, or a proposal while the policy in force has policyGovernance',
  security,
  request: {
    body: { required: true, content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
  },
  responses: {
    200: json(
      Version.extend({ review: Review }),
      'The new version, in force, and what it did to the submissions awaiting approval',
    ),
    202: json(Proposal, 'A proposal: it takes effect when a quorum of the governance group approves it'),
    ...errorResponses(400, 401, 403, 409),
  },
});

const listVersions = createRoute({
  method: 'get',
  path: '/wallet/v1/policy/versions',
  operationId: 'listPolicyVersions',
  tags: ['policy'],
  summary: 'Every policy version, newest first, with what each changed (admin)',
  security,
  responses: {
    200: json(
      z.object({ items: z.array(Version.extend({ diff: z.array(Change) })) }),
      'The versions, newest first',
    ),
    ...errorResponses(401, 403),
  },
});

const listProposals = createRoute({
  method: 'get',
  path: '/wallet/v1/policy/proposals',
  operationId: 'listPolicyProposals',
  tags: ['policy'],
  summary: 'Proposed policy changes, newest first (admin)',
  security,
  request: {
    query: z.object({
      status: z.enum(['pending', 'applied', 'rejected', 'superseded', 'expired']).optional(),
    }),
  },
  responses: {
    200: json(z.object({ items: z.array(Proposal) }), 'The proposals'),
    ...errorResponses(400, 401, 403),
  },
});

const getProposal = createRoute({
  method: 'get',
  path: '/wallet/v1/policy/proposals/{id}',
  operationId: 'getPolicyProposal',
  tags: ['policy'],
  summary: 'One proposed policy change, with its diff (admin)',
  security,
  request: { params: ProposalId },
  responses: {
    200: json(Proposal, 'The proposal'),
    ...errorResponses(401, 403, 404),
  },
});

const decideProposal = createRoute({
  method: 'post',
  path: '/wallet/v1/policy/proposals/{id}/approvals',
  operationId: 'decidePolicyProposal',
  tags: ['policy'],
  summary:
    'Approve or reject a proposed policy change (unscoped admin of the governance group; bound to its document hash)',
  security,
  request: {
    params: ProposalId,
    body: { required: true, content: { 'application/json': { schema: ProposalDecision } } },
  },
  responses: {
    200: json(
      Proposal.extend({ review: Review.optional() }),
      'The proposal after this decision (applied when it reached the quorum, with the review of what awaits approval)',
    ),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

const evaluate = createRoute({
  method: 'post',
  path: '/wallet/v1/policy/evaluate',
  operationId: 'evaluatePolicy',
  tags: ['policy'],
  summary: 'Dry run: which rule matches a submission and what would happen (nothing is stored or signed)',
  security,
  request: { body: { required: true, content: { 'application/json': { schema: SubmissionBody } } } },
  responses: {
    200: json(
      z.object({
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
      'The decision',
    ),
    ...errorResponses(400, 401, 403),
  },
});

const withHash = (v: PolicyVersion) => ({ ...v, documentHash: policyHash(v.document) });

export function policyRoutes(deps: AppDeps) {
  const stores = () => {
    if (!deps.policies || !deps.proposals)
      throw new ApiError(404, 'NOT_FOUND', 'this wallet keeps no policy versions');
    return { policies: deps.policies, proposals: deps.proposals };
  };
  /** A proposal as answered: with its diff from the version it was proposed against. */
  const shown = async (p: PolicyProposal) => {
    const base = p.baseVersion > 0 ? await stores().policies.version(p.baseVersion) : undefined;
    return { ...p, diff: policyDiff(base?.document, p.document) };
  };
  const review = (actor: string) => reviewAwaiting(approvalDeps(deps), actor);

  return new OpenAPIHono<AppEnv>()
    .openapi(getPolicy, async (c) => {
      need(c, 'admin');
      const current = await deps.accept.policy?.current();
      return c.json(
        {
          version: current?.version ?? null,
          document: current?.document ?? null,
          documentHash: current ? policyHash(current.document) : null,
        },
        200,
      );
    })
    .openapi(putPolicy, async (c) => {
      const who = unscopedAdmin(c, UNSCOPED);
      const { policies, proposals } = stores();
      let doc: ReturnType<typeof validatePolicy>;
      try {
        doc = validatePolicy(c.req.valid('json'));
      } catch (err) {
        if (err instanceof PolicyInvalid) throw new ApiError(400, 'POLICY_INVALID', err.message);
        throw err;
      }
      const current = await policies.current();
      if (governanceOf(current)) {
        const proposal = await proposals.propose(doc, who.subject);
        deps.log?.('info', 'policy change proposed', { proposal: proposal.id, by: who.subject });
        return c.json(await shown(proposal), 202);
      }
      const v = await policies.put(doc, who.subject, undefined, current?.version ?? 0);
      deps.log?.('info', 'policy changed', { version: v.version, by: who.subject });
      return c.json({ ...withHash(v), review: await review(`policy@${v.version}`) }, 200);
    })
    .openapi(listVersions, async (c) => {
      need(c, 'admin');
      const all = await stores().policies.versions();
      const items = all.map((v, i) => ({
        ...withHash(v),
        diff: policyDiff(all[i - 1]?.document, v.document),
      }));
      return c.json({ items: items.reverse() }, 200);
    })
    .openapi(listProposals, async (c) => {
      need(c, 'admin');
      const { status } = c.req.valid('query');
      const all = await stores().proposals.list();
      const items = await Promise.all(all.filter((p) => !status || p.status === status).map(shown));
      return c.json({ items }, 200);
    })
    .openapi(getProposal, async (c) => {
      need(c, 'admin');
      const p = await stores().proposals.get(c.req.valid('param').id);
      if (!p) throw new ApiError(404, 'NOT_FOUND', 'no such policy proposal');
      return c.json(await shown(p), 200);
    })
    .openapi(decideProposal, async (c) => {
      const who = unscopedAdmin(c, UNSCOPED);
      const step = await stores().proposals.decide(who, c.req.valid('param').id, c.req.valid('json'));
      if (!step.applied) return c.json(await shown(step.proposal), 200);
      deps.log?.('info', 'policy changed', {
        version: step.applied.version,
        by: step.applied.by,
        proposal: step.proposal.id,
      });
      const reviewed = await review(`policy@${step.applied.version}`);
      return c.json({ ...(await shown(step.proposal)), review: reviewed }, 200);
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
