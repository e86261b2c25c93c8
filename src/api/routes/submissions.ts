// POST/GET /wallet/v1/submissions, the batch endpoint and GET /wallet/v1/updates/{updateId}.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { echo } from '@quill/canton/errors';
import { DEFAULT_RECOGNIZERS } from '../../policy/index.ts';
import {
  acceptSubmission,
  Inspector,
  isTerminal,
  type SubmissionRecord,
  SubmissionRefused,
} from '../../submissions/index.ts';
import { type AppDeps, type AppEnv, need, visible } from '../context.ts';
import { ApiError, describeCause, errorResponses, invalidRequest, toHttpError } from '../errors.ts';
import {
  committedSubmissionExample,
  queuedSubmissionExample,
  submissionRequestExample,
} from '../examples.ts';
import {
  AssetMovementsSchema,
  BatchBody,
  BatchItem,
  BatchResult,
  IdempotencyHeader,
  ListQuery,
  SubmissionBody,
  SubmissionList,
  SubmissionView,
  TransactionPreview,
  WaitQuery,
} from '../schemas.ts';
import { security } from './shared.ts';

/** Pages of the index one time-filtered listing reads before answering with a cursor. */
const SCAN_PAGES = 20;
const record = (description: string, example: object = committedSubmissionExample) => ({
  description,
  content: { 'application/json': { schema: SubmissionView, example } },
});

const submit = createRoute({
  method: 'post',
  path: '/wallet/v1/submissions',
  operationId: 'createSubmission',
  tags: ['submissions'],
  summary: 'Check, sign and submit a prepared transaction (exactly once)',
  security,
  request: {
    query: WaitQuery,
    headers: IdempotencyHeader,
    body: {
      required: true,
      content: { 'application/json': { schema: SubmissionBody, example: submissionRequestExample } },
    },
  },
  responses: {
    200: record('The outcome (terminal record), after ?wait or for a repeated request'),
    202: record('Accepted; the record as it stands', queuedSubmissionExample),
    ...errorResponses(400, 401, 403, 409, 413, 422, 429, 503),
  },
});

const batch = createRoute({
  method: 'post',
  path: '/wallet/v1/submissions/batch',
  operationId: 'createSubmissionBatch',
  tags: ['submissions'],
  summary: 'Submit several prepared transactions; one result per item',
  security,
  request: { body: { required: true, content: { 'application/json': { schema: BatchBody } } } },
  responses: {
    200: { description: 'Per-item results', content: { 'application/json': { schema: BatchResult } } },
    ...errorResponses(400, 401, 403, 413, 429),
  },
});

const getOne = createRoute({
  method: 'get',
  path: '/wallet/v1/submissions/{id}',
  operationId: 'getSubmission',
  tags: ['submissions'],
  summary: 'One submission',
  security,
  request: { params: z.object({ id: z.string().min(1).max(100) }), query: WaitQuery },
  responses: { 200: record('The submission'), ...errorResponses(400, 401, 403, 404) },
});

const SubmissionPreview = z
  .object({
    id: z.string(),
    preparedTransactionHash: z.string().openapi({ description: 'the hash that was signed, as stored' }),
    recomputedHash: z
      .string()
      .nullable()
      .openapi({ description: 'the hash recomputed now from the stored transaction (null once dropped)' }),
    hashMatches: z.boolean().nullable(),
    summary: z.array(z.string()).nullable().openapi({
      description: 'one sentence per asset movement, read from the decoded transaction (null once dropped)',
    }),
    tree: z.array(z.string()).nullable().openapi({ description: 'the node tree, one line per node' }),
    movements: AssetMovementsSchema.nullable(),
    preview: z.union([TransactionPreview, z.null()]).openapi({ description: 'null once dropped' }),
    payloadDroppedAt: z
      .string()
      .nullable()
      .openapi({ description: 'set once PAYLOAD_RETENTION_HOURS removed it' }),
  })
  .openapi('SubmissionPreview');

const preview = createRoute({
  method: 'get',
  path: '/wallet/v1/submissions/{id}/preview',
  operationId: 'getSubmissionPreview',
  tags: ['submissions'],
  summary: 'Exactly what was signed: the stored prepared transaction decoded, with its hash recomputed',
  security,
  request: { params: z.object({ id: z.string().min(1).max(100) }) },
  responses: {
    200: { description: 'The preview', content: { 'application/json': { schema: SubmissionPreview } } },
    ...errorResponses(400, 401, 403, 404),
  },
});

const list = createRoute({
  method: 'get',
  path: '/wallet/v1/submissions',
  operationId: 'listSubmissions',
  tags: ['submissions'],
  summary: 'Submissions, newest first, filtered by party and status, paged by cursor',
  security,
  request: { query: ListQuery },
  responses: {
    200: { description: 'A page', content: { 'application/json': { schema: SubmissionList } } },
    ...errorResponses(400, 401, 403),
  },
});

const byUpdate = createRoute({
  method: 'get',
  path: '/wallet/v1/updates/{updateId}',
  operationId: 'getSubmissionByUpdate',
  tags: ['submissions'],
  summary: 'The submission that produced a ledger update, with its transaction',
  security,
  request: { params: z.object({ updateId: z.string().min(1).max(512) }) },
  responses: { 200: record('The submission'), ...errorResponses(400, 401, 403, 404) },
});

/** The configured limit on a prepared transaction, in decoded bytes (base64 holds 3 bytes in 4 characters). */
function checkSize(deps: AppDeps, preparedTransaction: string): void {
  const bytes = Math.floor((preparedTransaction.length * 3) / 4);
  if (bytes > deps.limits.preparedTransactionBytes) {
    throw new ApiError(
      413,
      'TOO_LARGE',
      `preparedTransaction: ${bytes} bytes, more than the ${deps.limits.preparedTransactionBytes} this wallet accepts`,
    );
  }
}

function waitSeconds(deps: AppDeps, wait: number | undefined): number {
  return Math.min(deps.waitMaxSeconds, wait ?? 0);
}

export function submissionRoutes(deps: AppDeps) {
  const inspector = deps.inspector ?? new Inspector({ holdings: DEFAULT_RECOGNIZERS.holdings });
  return new OpenAPIHono<AppEnv>()
    .openapi(submit, async (c) => {
      const who = need(c, 'submit');
      const started = performance.now();
      // The prepare response's verbose hashing text is informative only: not part of the request.
      const { hashingDetails: _, ...body } = c.req.valid('json');
      const { wait } = c.req.valid('query');
      const key = c.req.valid('header')['idempotency-key'];
      checkSize(deps, body.preparedTransaction);
      await deps.limitAccepts?.(who, 1);
      const { record: accepted } = await acceptSubmission(deps.accept, body, who, key);
      deps.metrics.acceptSeconds.observe((performance.now() - started) / 1000);
      let rec = accepted;
      const seconds = waitSeconds(deps, wait);
      if (seconds > 0 && !isTerminal(rec.status))
        rec = (await deps.waiter.wait(rec.id, seconds * 1000)) ?? rec;
      return isTerminal(rec.status) ? c.json(rec, 200) : c.json(rec, 202);
    })
    .openapi(batch, async (c) => {
      const who = need(c, 'submit');
      const { submissions } = c.req.valid('json');
      if (submissions.length > deps.batchMax) {
        throw new ApiError(413, 'BATCH_TOO_LARGE', `at most ${deps.batchMax} submissions per batch`);
      }
      const bytes = (await c.req.arrayBuffer()).byteLength;
      if (bytes > deps.limits.batchBytes) {
        throw new ApiError(
          413,
          'BATCH_TOO_LARGE',
          `a batch body may be at most ${deps.limits.batchBytes} bytes`,
        );
      }
      await deps.limitAccepts?.(who, submissions.length);
      const acceptItem = async (raw: unknown, index: number) => {
        const parsed = BatchItem.safeParse(raw);
        if (!parsed.success) {
          const { status, body } = invalidRequest(parsed.error);
          return { index, status, error: body.error };
        }
        const { idempotencyKey, hashingDetails: _, ...item } = parsed.data;
        try {
          checkSize(deps, item.preparedTransaction);
          const { record: rec } = await acceptSubmission(deps.accept, item, who, idempotencyKey);
          return { index, status: isTerminal(rec.status) ? 200 : 202, submission: rec };
        } catch (err) {
          if (err instanceof SubmissionRefused) deps.metrics.refused.inc({ code: err.code });
          const { status, body, logCause } = toHttpError(err);
          if (logCause) {
            deps.log?.('error', 'batch item failed', {
              requestId: c.get('requestId'),
              index,
              code: body.error.code,
              error: describeCause(err),
            });
          }
          return { index, status, error: body.error };
        }
      };
      // Each item is validated (megabytes of base64 checked) in its own turn of the event loop, then accepted
      // alongside the others: the whole batch in one turn would hold every other request behind it.
      const accepting = [];
      for (const [index, raw] of submissions.entries()) {
        if (index > 0) await new Promise((r) => setImmediate(r));
        accepting.push(acceptItem(raw, index));
      }
      const items = await Promise.all(accepting);
      return c.json({ items }, 200);
    })
    .openapi(preview, async (c) => {
      const who = need(c, 'read');
      const { id } = c.req.valid('param');
      const stored = await deps.store.get(id);
      const rec = visible(who, stored?.record);
      if (!stored || !rec) throw new ApiError(404, 'NOT_FOUND', `no submission ${echo(id)}`);
      const base = { id: rec.id, preparedTransactionHash: rec.preparedTransactionHash };
      if (!stored.payload) {
        return c.json(
          {
            ...base,
            recomputedHash: null,
            hashMatches: null,
            summary: null,
            tree: null,
            movements: null,
            preview: null,
            payloadDroppedAt: stored.payloadDroppedAt ?? null,
          },
          200,
        );
      }
      // It decoded when it was accepted: a failure here is a damaged store, a 500 for the operator's log. A large
      // one is decoded and serialized on the inspection pool; the answer is written as that text.
      const { hash, json } = await inspector.preview(
        stored.payload.preparedTransaction,
        rec.hashingSchemeVersion,
      );
      const head = JSON.stringify({
        ...base,
        recomputedHash: hash,
        hashMatches: hash === rec.preparedTransactionHash,
        payloadDroppedAt: null,
      });
      return c.body(`${head.slice(0, -1)},${json.slice(1)}`, 200, {
        'content-type': 'application/json',
      }) as unknown as ReturnType<typeof c.json<z.infer<typeof SubmissionPreview>, 200>>;
    })
    .openapi(getOne, async (c) => {
      const who = need(c, 'read');
      const { id } = c.req.valid('param');
      const { wait } = c.req.valid('query');
      let rec = visible(who, await deps.store.getRecord(id));
      if (!rec) throw new ApiError(404, 'NOT_FOUND', `no submission ${echo(id)}`);
      const seconds = waitSeconds(deps, wait);
      if (seconds > 0 && !isTerminal(rec.status))
        rec = (await deps.waiter.wait(rec.id, seconds * 1000)) ?? rec;
      return c.json(rec, 200);
    })
    .openapi(list, async (c) => {
      const who = need(c, 'read');
      const q = c.req.valid('query');
      if (who.party !== undefined && q.party !== undefined && q.party !== who.party) {
        throw new ApiError(403, 'PARTY_NOT_ALLOWED', 'this token may only list its own party');
      }
      const party = who.party ?? q.party;
      const since = q.since ? Date.parse(q.since) : undefined;
      const until = q.until ? Date.parse(q.until) : undefined;
      // Newest first in creation order: skip what is newer than `until`, stop at the first older than `since`.
      // Scans at most SCAN_PAGES pages per request; the cursor continues where the scan stopped.
      const items: SubmissionRecord[] = [];
      let cursor = q.cursor;
      for (let scanned = 0; scanned < SCAN_PAGES; scanned++) {
        const page = await deps.store.list({
          limit: q.limit - items.length,
          ...(party !== undefined ? { party } : {}),
          ...(q.status ? { status: q.status } : {}),
          ...(cursor ? { cursor } : {}),
        });
        cursor = page.nextCursor ?? undefined;
        for (const rec of page.items) {
          const at = Date.parse(rec.createdAt);
          if (since !== undefined && at < since) return c.json({ items, nextCursor: null }, 200);
          if (until === undefined || at < until) items.push(rec);
        }
        if (!cursor || items.length >= q.limit || (since === undefined && until === undefined)) break;
      }
      return c.json({ items, nextCursor: cursor ?? null }, 200);
    })
    .openapi(byUpdate, async (c) => {
      const who = need(c, 'read');
      const { updateId } = c.req.valid('param');
      const rec = visible(who, await deps.store.byUpdateId(updateId));
      if (!rec) throw new ApiError(404, 'NOT_FOUND', `no submission produced update ${echo(updateId)}`);
      return c.json(rec, 200);
    });
}
