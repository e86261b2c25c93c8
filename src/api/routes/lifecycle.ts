// A submission's lifecycle (issue 30 item 6): GET …/timeline (its steps, the plain explanation of its error, the
// spent inputs a refusal named and what spent them, the admin actions its state allows), and the two admin
// actions on a record waiting on the ledger: POST …/search ("search the ledger now") and POST …/expire ("mark
// expired", once it can no longer commit). Both run the worker's own search and transitions (src/submissions
// operator.ts), so they are safe beside a running worker.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { echo } from '@quill/canton/errors';
import {
  type ExecutorDeps,
  expireNow,
  explain,
  isTerminal,
  mayStillCommit,
  recordDeadline,
  type SubmissionRecord,
  searchNow,
  spentInputs,
  timeline,
} from '../../submissions/index.ts';
import { type AppDeps, type AppEnv, type LedgerReads, need, visible } from '../context.ts';
import { ApiError, errorResponses } from '../errors.ts';
import { within } from '../probes.ts';
import { SubmissionView } from '../schemas.ts';
import { security } from './shared.ts';

const Params = z.object({ id: z.string().min(1).max(100).openapi({ example: 'sub_5mXq0eV0fR1r2yG7uQ4w' }) });

const Step = z.object({
  kind: z.enum([
    'accepted',
    'approval',
    'signed',
    'signature',
    'attempt',
    'searched',
    'committed',
    'rejected',
    'expired',
    'waiting',
  ]),
  at: z.string().nullable().describe('ISO 8601; null for what the record waits for now (the last step)'),
  text: z.string(),
  outcome: z.string().optional().describe("an attempt's outcome"),
  code: z.string().optional(),
});

const SpentInput = z.object({
  contractId: z.string(),
  templateId: z.string().nullable(),
  spentBy: z
    .object({
      offset: z.number().int(),
      updateId: z.string().nullable(),
      submission: z.string().nullable().describe("Quill's record of that update, when it was one of its own"),
    })
    .nullable()
    .describe('the update that archived it; null when the ledger shows no archive to this party'),
  lookup: z.enum(['found', 'not visible', 'failed']),
});

const Timeline = z
  .object({
    id: z.string(),
    status: z.string(),
    steps: z.array(Step),
    explanation: z
      .object({ code: z.string(), title: z.string(), text: z.string(), next: z.string() })
      .nullable()
      .describe("the record's error in plain words, with the next step"),
    spentInputs: z
      .array(SpentInput)
      .describe('for a refusal naming inactive contracts: each one, and the update that spent it'),
    actions: z.object({
      search: z.boolean().describe('POST …/search applies (something was sent and the record is not final)'),
      expireFrom: z
        .string()
        .nullable()
        .describe(
          'POST …/expire applies from this time (null: never, the record is final or awaits approval)',
        ),
    }),
  })
  .openapi('SubmissionTimeline');

const Outcome = z
  .object({
    found: z.boolean().describe('the transaction was found on the ledger: the record is committed'),
    record: SubmissionView,
  })
  .openapi('OperatorResult');

const getTimeline = createRoute({
  method: 'get',
  path: '/wallet/v1/submissions/{id}/timeline',
  operationId: 'getSubmissionTimeline',
  tags: ['submissions'],
  summary: "A submission's lifecycle: its steps, its error explained, and the admin actions its state allows",
  security,
  request: { params: Params },
  responses: {
    200: { description: 'The timeline', content: { 'application/json': { schema: Timeline } } },
    ...errorResponses(400, 401, 403, 404),
  },
});

const operatorAnswers = {
  200: {
    description: 'Done: the record as it stands now (committed when the search found it)',
    content: { 'application/json': { schema: Outcome } },
  },
  ...errorResponses(400, 401, 403, 404, 409, 502, 503),
};

const search = createRoute({
  method: 'post',
  path: '/wallet/v1/submissions/{id}/search',
  operationId: 'searchSubmission',
  tags: ['submissions'],
  summary:
    'Admin: search the ledger now for a transaction whose outcome is not known; commits the record when found',
  description:
    '409 ALREADY_FINAL, AWAITING_APPROVAL or NOT_SENT when there is nothing to search for. Sends nothing.',
  security,
  request: { params: Params },
  responses: operatorAnswers,
});

const expire = createRoute({
  method: 'post',
  path: '/wallet/v1/submissions/{id}/expire',
  operationId: 'expireSubmission',
  tags: ['submissions'],
  summary: 'Admin: mark a submission expired once it can no longer commit (a last search first; audited)',
  description:
    '409 STILL_COMMITTABLE before canCommitUntil, STILL_SETTLING within SETTLE_GRACE_SECONDS after it when an ' +
    'attempt may have reached the ledger; a transaction found by the last search commits the record instead.',
  security,
  request: {
    params: Params,
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z.object({
            reason: z.string().trim().min(1).max(500).describe('why (in the audit entry)'),
          }),
        },
      },
    },
  },
  responses: operatorAnswers,
});

/** How long the timeline waits for the ledger per spent input before saying the lookup failed. */
const LOOKUP_MS = 3000;
const MAX_LOOKUPS = 5;

/** Each contract the refusal named, and the update that archived it, as the record's party sees them. */
async function spent(deps: AppDeps, rec: SubmissionRecord): Promise<z.infer<typeof SpentInput>[]> {
  if (!spentInputs(rec.error)) return [];
  const ids = rec.error?.contractIds ?? [];
  const reads: LedgerReads | undefined = deps.ledgerReads;
  return Promise.all(
    ids.slice(0, MAX_LOOKUPS).map(async (contractId) => {
      const none = { contractId, templateId: null, spentBy: null };
      if (!reads?.contractEvents) return { ...none, lookup: 'failed' as const };
      try {
        const events = await within(LOOKUP_MS, reads.contractEvents(contractId, rec.party));
        if (!events) return { ...none, lookup: 'not visible' as const };
        const templateId = events.created?.createdEvent.templateId ?? null;
        const archived = events.archived?.archivedEvent;
        if (!archived) return { ...none, templateId, lookup: 'found' as const };
        const tx = await within(LOOKUP_MS, reads.transactionByOffset(archived.offset, rec.party)).catch(
          () => undefined,
        );
        const ours = tx ? await deps.store.byUpdateId(tx.updateId) : undefined;
        return {
          contractId,
          templateId,
          spentBy: { offset: archived.offset, updateId: tx?.updateId ?? null, submission: ours?.id ?? null },
          lookup: 'found' as const,
        };
      } catch {
        return { ...none, lookup: 'failed' as const };
      }
    }),
  );
}

/** From when an admin may mark it expired: the deadline, plus the settle grace when an attempt may commit. */
function expireFrom(rec: SubmissionRecord, executor: ExecutorDeps | undefined): string | null {
  if (
    isTerminal(rec.status) ||
    rec.status === 'awaiting_approval' ||
    rec.status === 'awaiting_signatures' ||
    !executor
  )
    return null;
  const deadline = recordDeadline(rec, executor.config).at;
  return new Date(deadline + (mayStillCommit(rec) ? executor.config.settleGraceMs : 0) + 1).toISOString();
}

export function lifecycleRoutes(deps: AppDeps) {
  const executor = () => {
    if (!deps.executor)
      throw new ApiError(503, 'UNAVAILABLE', 'the ledger actions are not available in this process');
    return deps.executor;
  };
  const mine = async (who: Parameters<typeof visible>[0], id: string) => {
    const rec = visible(who, await deps.store.getRecord(id));
    if (!rec) throw new ApiError(404, 'NOT_FOUND', `no submission ${echo(id)}`);
    return rec;
  };
  return new OpenAPIHono<AppEnv>()
    .openapi(getTimeline, async (c) => {
      const rec = await mine(need(c, 'read'), c.req.valid('param').id);
      return c.json(
        {
          id: rec.id,
          status: rec.status,
          steps: timeline(rec),
          explanation: explain(rec) ?? null,
          spentInputs: await spent(deps, rec),
          actions: {
            search: !isTerminal(rec.status) && rec.attempts.length > 0,
            expireFrom: expireFrom(rec, deps.executor),
          },
        },
        200,
      );
    })
    .openapi(search, async (c) => {
      const who = need(c, 'admin');
      const rec = await mine(who, c.req.valid('param').id);
      const result = await searchNow(executor(), rec.id);
      deps.log?.('info', 'operator search', { submission: rec.id, actor: who.subject, found: result.found });
      return c.json(result, 200);
    })
    .openapi(expire, async (c) => {
      const who = need(c, 'admin');
      const rec = await mine(who, c.req.valid('param').id);
      const { reason } = c.req.valid('json');
      const result = await expireNow(executor(), rec.id, { subject: who.subject, reason });
      deps.log?.('info', 'operator expire', {
        submission: rec.id,
        actor: who.subject,
        status: result.record.status,
      });
      return c.json(result, 200);
    });
}
