// Intents: POST /wallet/v1/transfers, /wallet/v1/transfer-instructions/{id}/accept|reject|withdraw,
// /wallet/v1/commands and /wallet/v1/submissions/{id}/reprepare. Quill prepares through the participant and
// verifies the result does exactly what was asked before the ordinary accept path (src/intents); the answers are
// submission records, as POST /wallet/v1/submissions gives them.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { echo } from '@quill/canton/errors';
import { Command, DisclosedContract, MinLedgerTime } from '@quill/canton/ledger';
import type { AcceptResult } from '../../submissions/index.ts';
import { isTerminal } from '../../submissions/index.ts';
import { type AppDeps, type AppEnv, need, visible } from '../context.ts';
import { ApiError, errorResponses } from '../errors.ts';
import { IdempotencyHeader, Instrument, SubmissionView, WaitQuery } from '../schemas.ts';
import { security } from './shared.ts';

const Party = z.string().min(1).max(512);
const Amount = z
  .string()
  .regex(/^\d{1,28}(\.\d{1,10})?$/, 'must be a decimal amount with at most 10 decimals')
  .refine((s) => /[1-9]/.test(s), 'must be more than 0')
  .openapi({ example: '12.5' });
const UserId = z.string().min(1).max(256).optional().openapi({
  description: "the ledger user the transaction is prepared and executed as (default the wallet's)",
});

export const TransferRequest = z
  .object({
    party: Party.openapi({ description: 'the sending party, held by this wallet' }),
    receiver: Party,
    instrument: Instrument,
    amount: Amount,
    memo: z
      .string()
      .max(256)
      .optional()
      .openapi({ description: 'the transfer\'s reason (meta "splice.lfdecentralizedtrust.org/reason")' }),
    executeBefore: z.iso
      .datetime({ offset: true })
      .optional()
      .openapi({ description: 'the transfer must settle before this time; default 24 h from now' }),
    userId: UserId,
  })
  .strict()
  .openapi('TransferRequest', {
    example: {
      party: 'alice::1220…',
      receiver: 'bob::1220…',
      instrument: { admin: 'DSO::1220…', id: 'Amulet' },
      amount: '12.5',
      memo: 'invoice 42',
    },
  });

const InstructionRequest = z
  .object({
    party: Party.optional().openapi({
      description:
        'the acting party: the receiver (accept, reject) or the sender (withdraw); found when omitted',
    }),
    userId: UserId,
  })
  .strict()
  .openapi('TransferInstructionDecision');

const CommandsRequest = z
  .object({
    party: Party.openapi({ description: 'the only actAs party, held by this wallet' }),
    commands: z
      .array(Command)
      .min(1)
      .max(20)
      .openapi({ description: 'as the participant’s prepare takes them' }),
    disclosedContracts: z.array(DisclosedContract).max(100).optional(),
    synchronizerId: z
      .string()
      .max(512)
      .optional()
      .openapi({ description: 'empty or absent: the participant chooses' }),
    minLedgerTime: MinLedgerTime.optional(),
    userId: UserId,
  })
  .strict()
  .openapi('CommandsRequest');

const answers = {
  200: {
    description: 'The outcome (final record) after ?wait, or the record an Idempotency-Key already names',
    content: { 'application/json': { schema: SubmissionView } },
  },
  202: {
    description: 'Prepared, verified and accepted',
    content: { 'application/json': { schema: SubmissionView } },
  },
  ...errorResponses(400, 401, 403, 404, 409, 422, 502, 503),
};

const transfer = createRoute({
  method: 'post',
  path: '/wallet/v1/transfers',
  operationId: 'createTransfer',
  tags: ['intents'],
  summary:
    'Transfer a token-standard instrument: Quill prepares, verifies, signs and submits it (exactly once)',
  description:
    "Quill picks the party's holdings, asks the instrument's registry for its transfer factory, prepares through " +
    'the participant, and signs only if the prepared transaction sends exactly `amount` of `instrument` from ' +
    '`party` to `receiver` (change back to the party) and nothing else leaves anyone: otherwise ' +
    '422 INTENT_MISMATCH naming the difference.',
  security,
  request: {
    query: WaitQuery,
    headers: IdempotencyHeader,
    body: { required: true, content: { 'application/json': { schema: TransferRequest } } },
  },
  responses: answers,
});

const ACTIONS = ['accept', 'reject', 'withdraw'] as const;
const instruction = createRoute({
  method: 'post',
  path: '/wallet/v1/transfer-instructions/{contractId}/{action}',
  operationId: 'decideTransferInstruction',
  tags: ['intents'],
  summary: 'Accept or reject an incoming two-step transfer, or withdraw an outgoing one',
  security,
  request: {
    params: z.object({ contractId: z.string().min(1).max(512), action: z.enum(ACTIONS) }),
    query: WaitQuery,
    headers: IdempotencyHeader,
    body: { required: false, content: { 'application/json': { schema: InstructionRequest } } },
  },
  responses: answers,
});

const commands = createRoute({
  method: 'post',
  path: '/wallet/v1/commands',
  operationId: 'submitCommands',
  tags: ['intents'],
  summary:
    'Raw Daml commands: Quill prepares them, checks the result is those commands, then signs and submits',
  security,
  request: {
    query: WaitQuery,
    headers: IdempotencyHeader,
    body: { required: true, content: { 'application/json': { schema: CommandsRequest } } },
  },
  responses: answers,
});

const reprepare = createRoute({
  method: 'post',
  path: '/wallet/v1/submissions/{id}/reprepare',
  operationId: 'reprepareSubmission',
  tags: ['intents'],
  summary: 'Prepare an expired intent again, as a new record (audited); asking twice gives the same record',
  security,
  request: { params: z.object({ id: z.string().min(1).max(100) }), query: WaitQuery },
  responses: answers,
});

export function intentRoutes(deps: AppDeps) {
  const service = () => {
    if (!deps.intents) throw new ApiError(503, 'UNAVAILABLE', 'intents are not available in this process');
    return deps.intents;
  };
  /** Waits as POST /wallet/v1/submissions does: 200 once final, 202 while under way. */
  const answer = async (
    c: { json: (b: unknown, s: 200 | 202) => Response },
    result: AcceptResult,
    wait: number | undefined,
  ) => {
    let rec = result.record;
    const seconds = Math.min(deps.waitMaxSeconds, wait ?? 0);
    if (seconds > 0 && !isTerminal(rec.status)) rec = (await deps.waiter.wait(rec.id, seconds * 1000)) ?? rec;
    return c.json(rec, isTerminal(rec.status) ? 200 : 202);
  };
  return new OpenAPIHono<AppEnv>()
    .openapi(transfer, async (c) => {
      const who = need(c, 'submit');
      await deps.limitAccepts?.(who, 1);
      const result = await service().transfer(
        who,
        c.req.valid('json'),
        c.req.valid('header')['idempotency-key'],
      );
      return answer(c as never, result, c.req.valid('query').wait) as never;
    })
    .openapi(instruction, async (c) => {
      const who = need(c, 'submit');
      const { contractId, action } = c.req.valid('param');
      // An empty body is `{}`.
      const text = await c.req.text();
      let json: unknown = {};
      try {
        if (text.trim() !== '') json = JSON.parse(text);
      } catch {
        throw new ApiError(400, 'INVALID_REQUEST', 'the body is not JSON');
      }
      const parsed = InstructionRequest.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new ApiError(
          400,
          'INVALID_REQUEST',
          `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
        );
      }
      await deps.limitAccepts?.(who, 1);
      const result = await service().instruction(
        who,
        { contractId, action, ...parsed.data },
        c.req.valid('header')['idempotency-key'],
      );
      return answer(c as never, result, c.req.valid('query').wait) as never;
    })
    .openapi(commands, async (c) => {
      const who = need(c, 'submit');
      await deps.limitAccepts?.(who, 1);
      const result = await service().commands(
        who,
        c.req.valid('json'),
        c.req.valid('header')['idempotency-key'],
      );
      return answer(c as never, result, c.req.valid('query').wait) as never;
    })
    .openapi(reprepare, async (c) => {
      const who = need(c, 'submit');
      const { id } = c.req.valid('param');
      const old = visible(who, await deps.store.getRecord(id));
      if (!old) throw new ApiError(404, 'NOT_FOUND', `no submission ${echo(id)}`);
      const result = await service().reprepare(who, old);
      return answer(c as never, result, c.req.valid('query').wait) as never;
    });
}
