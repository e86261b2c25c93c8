// A party's tokens from the watcher's index, for every instrument of every registry (read through the token
// standard's interface views, src/history/tokens.ts): GET /wallet/v1/parties/{party}/holdings (balances per
// instrument) and GET /wallet/v1/parties/{party}/transfer-instructions (pending, incoming and outgoing). Read
// role; a party token sees only its own party, any other looks like it does not exist.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { instrumentKey } from '@quill/canton/token';
import { HistoryError } from '../../../history/index.ts';
import { type IndexedHolding, isLocked } from '../../../history/tokens.ts';
import { sumDecimals } from '../../../policy/decimal.ts';
import { type AppDeps, type AppEnv, need } from '../../context.ts';
import { ApiError, errorResponses } from '../../errors.ts';
import { Instrument } from '../../schemas.ts';
import { security } from '../shared.ts';

const PartyParam = z.object({ party: z.string().min(1).max(255) });

const Decimal = (description: string) =>
  z.string().openapi({ description: `${description} (exact decimal string)`, example: '250.5' });

export const HoldingView = z
  .object({
    contractId: z.string(),
    templateId: z.string().openapi({ description: "the registry's template (informative only)" }),
    owner: z.string(),
    instrument: Instrument,
    amount: Decimal('as the Holding view says it'),
    lock: z
      .object({
        holders: z.array(z.string()),
        expiresAt: z.string().nullable(),
        expiresAfterMicros: z
          .string()
          .nullable()
          .openapi({ description: 'RelTime after the holding was created' }),
        context: z.string().nullable(),
      })
      .nullable(),
    locked: z.boolean().openapi({ description: 'a lock that has not expired (an expired lock is unlocked)' }),
    createdAt: z.string(),
    offset: z.number().int().openapi({ description: 'where it was created' }),
  })
  .openapi('Holding');

const InstrumentBalance = z
  .object({
    instrument: Instrument,
    total: Decimal('every holding'),
    locked: Decimal('holdings under a lock that has not expired'),
    unlocked: Decimal('total − locked'),
    holdings: z.array(HoldingView),
  })
  .openapi('InstrumentBalance');

const Holdings = z
  .object({
    instruments: z
      .array(InstrumentBalance)
      .openapi({ description: 'one entry per instrument, never summed' }),
    items: z.array(HoldingView).openapi({
      description: 'every holding in one list, as this route answered before per-instrument balances',
      deprecated: true,
    }),
  })
  .openapi('PartyHoldings');

const Direction = z.enum(['incoming', 'outgoing']);

const InstructionView = z
  .object({
    contractId: z
      .string()
      .openapi({ description: 'the TransferInstruction; the `transfer.incoming` event id' }),
    templateId: z.string(),
    direction: Direction.openapi({ description: 'incoming: the party is the receiver' }),
    sender: z.string(),
    receiver: z.string(),
    amount: Decimal('transfer.amount'),
    instrument: Instrument,
    requestedAt: z.string(),
    executeBefore: z.string(),
    expired: z
      .boolean()
      .openapi({ description: 'executeBefore has passed: the registry will not execute it' }),
    memo: z
      .string()
      .nullable()
      .openapi({ description: "transfer.meta 'splice.lfdecentralizedtrust.org/reason'" }),
    status: z.string().openapi({
      description: 'TransferPendingReceiverAcceptance or TransferPendingInternalWorkflow',
    }),
    originalInstructionCid: z.string().nullable(),
    updateId: z.string().openapi({ description: 'the transaction that created it' }),
    offset: z.number().int(),
  })
  .openapi('TransferInstruction');

const holdings = createRoute({
  method: 'get',
  path: '/wallet/v1/parties/{party}/holdings',
  operationId: 'listPartyHoldings',
  tags: ['history'],
  summary: "The party's holdings and balances per instrument (any registry), from the watcher's index",
  description:
    "Every active contract implementing the token standard's Holding interface that the party owns, read through " +
    'its interface view, grouped by instrument `{admin, id}` with exact sums. A lock counts until it expires.',
  security,
  request: { params: PartyParam },
  responses: {
    200: { description: 'Balances per instrument', content: { 'application/json': { schema: Holdings } } },
    ...errorResponses(400, 401, 403, 404, 503),
  },
});

const instructions = createRoute({
  method: 'get',
  path: '/wallet/v1/parties/{party}/transfer-instructions',
  operationId: 'listPartyTransferInstructions',
  tags: ['history'],
  summary: "The party's pending transfer instructions (two-step transfers), incoming and outgoing",
  description:
    'Active contracts implementing the TransferInstruction interface with the party as sender or receiver, ' +
    'oldest first; one leaves the list once the ledger archives it (accepted, rejected, withdrawn, or expired by ' +
    'its registry).',
  security,
  request: { params: PartyParam, query: z.object({ direction: Direction.optional() }) },
  responses: {
    200: {
      description: 'Pending instructions',
      content: { 'application/json': { schema: z.object({ items: z.array(InstructionView) }) } },
    },
    ...errorResponses(400, 401, 403, 404, 503),
  },
});

type HoldingOut = z.infer<typeof HoldingView>;

/** Holdings grouped by instrument, each group summed exactly; instruments and holdings in a stable order. */
function balances(held: readonly IndexedHolding[], now: number) {
  const out = held
    .map(
      (h): HoldingOut => ({
        contractId: h.contractId,
        templateId: h.templateId,
        owner: h.owner,
        instrument: h.instrument,
        amount: h.amount,
        lock: h.lock,
        locked: isLocked(h, now),
        createdAt: h.createdAt,
        offset: h.offset,
      }),
    )
    .sort((a, b) => a.offset - b.offset || a.contractId.localeCompare(b.contractId));
  const groups = new Map<string, HoldingOut[]>();
  for (const h of out) {
    const k = instrumentKey(h.instrument);
    const g = groups.get(k);
    if (g) g.push(h);
    else groups.set(k, [h]);
  }
  const instruments = [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, hs]) => ({
      instrument: (hs[0] as HoldingOut).instrument,
      total: sumDecimals(hs.map((h) => h.amount)),
      locked: sumDecimals(hs.filter((h) => h.locked).map((h) => h.amount)),
      unlocked: sumDecimals(hs.filter((h) => !h.locked).map((h) => h.amount)),
      holdings: hs,
    }));
  return { instruments, items: out };
}

export function tokenRoutes(deps: AppDeps) {
  /** The index, for a caller allowed to see `party`. */
  const index = (who: { party?: string | undefined }, party: string) => {
    if (who.party !== undefined && who.party !== party) throw new ApiError(404, 'NOT_FOUND', 'no such party');
    if (!deps.history) throw new ApiError(503, 'UNAVAILABLE', 'the history index is not available');
    return deps.history;
  };
  const unavailable = (err: unknown): never => {
    if (err instanceof HistoryError)
      throw new ApiError(503, 'UNAVAILABLE', 'a dependency is unavailable, try again');
    throw err;
  };
  return new OpenAPIHono<AppEnv>()
    .openapi(holdings, async (c) => {
      const { party } = c.req.valid('param');
      const h = index(need(c, 'read'), party);
      const held = await h.holdings(party).catch(unavailable);
      return c.json(balances(held, Date.now()), 200);
    })
    .openapi(instructions, async (c) => {
      const { party } = c.req.valid('param');
      const { direction } = c.req.valid('query');
      const h = index(need(c, 'read'), party);
      const now = Date.now();
      const items = (await h.instructions(party).catch(unavailable))
        .map((t) => ({
          ...t,
          direction: t.receiver === party ? ('incoming' as const) : ('outgoing' as const),
          expired: Date.parse(t.executeBefore) <= now,
        }))
        .filter((t) => direction === undefined || t.direction === direction)
        .sort((a, b) => a.offset - b.offset || a.contractId.localeCompare(b.contractId));
      return c.json({ items }, 200);
    });
}
