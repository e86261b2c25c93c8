/**
 * `POST /v2/commands/completions` (list form, like the updates list): accepted completions come from
 * committed transactions, failed ones from rejections recorded by the asynchronous `execute`. Visible are
 * completions of the request's user (default: the token's) with an actAs party among `parties`.
 */
import { z } from 'zod';
import { Int64Input, StreamQuery } from '../../ledger/index.ts';
import { isAdmin, requireReadAs } from '../auth.ts';
import { BodyDecodeError, err } from '../errors.ts';
import type { UpdateRecord } from '../state/index.ts';
import { type App, caller, readJson, type Services } from './http.ts';
import { streamUpdates } from './stream.ts';

const CompletionStreamRequest = z.object({
  userId: z.string().nullish(),
  parties: z.array(z.string()).nullish(),
  beginExclusive: Int64Input.nullish(),
});

function completion(rec: UpdateRecord, userId: string, parties: Set<string>) {
  if (rec.kind === 'topology' || rec.userId !== userId || !rec.actAs.some((p) => parties.has(p)))
    return undefined;
  const ok = rec.kind === 'transaction';
  return {
    Completion: {
      value: {
        commandId: rec.commandId,
        status: ok ? { code: 0, message: '', details: [] } : { ...rec.status, details: [] },
        updateId: ok ? rec.updateId : '',
        userId: rec.userId,
        actAs: rec.actAs,
        submissionId: rec.submissionId,
        deduplicationPeriod: null,
        traceContext: null,
        offset: rec.offset,
        synchronizerTime: { synchronizerId: rec.synchronizerId, recordTime: rec.recordTime },
        paidTrafficCost: 0,
      },
    },
  };
}

export function completionRoutes(app: App, services: Services): void {
  const { state } = services;
  app.post('/v2/commands/completions', async (c) => {
    const q = StreamQuery.safeParse({
      limit: c.req.query('limit'),
      stream_idle_timeout_ms: c.req.query('stream_idle_timeout_ms'),
    });
    if (!q.success)
      throw new BodyDecodeError('Invalid value for: query parameter limit or stream_idle_timeout_ms');
    const body = await readJson(c, CompletionStreamRequest);
    const who = caller(c);
    const parties = body.parties ?? [];
    if (parties.length === 0) throw err.missingField('parties');
    const userId = body.userId || who.userId || '';
    if (userId === '') throw err.missingField('user_id');
    if (!who.wildcard && userId !== who.userId && !isAdmin(who))
      throw err.permissionDenied('user id does not match the token');
    requireReadAs(who, parties);
    const begin = body.beginExclusive ?? 0;
    if (begin < 0) throw err.negativeOffset('begin_exclusive', begin);
    if (begin > state.log.end) throw err.offsetAfterLedgerEnd('Begin', begin, state.log.end);
    if (begin < state.log.prunedUpTo) {
      throw err.pruned(
        `Command completions request from ${begin + 1} to ${state.log.end} overlaps with pruned offset ${state.log.prunedUpTo}`,
        state.log.prunedUpTo,
      );
    }
    const wanted = new Set(parties);
    const out = await streamUpdates(services, (rec) => completion(rec, userId, wanted), {
      begin,
      end: undefined,
      descending: false,
      limit: q.data.limit ?? undefined,
      idleMs: q.data.stream_idle_timeout_ms ?? services.options.listWaitMs,
    });
    return c.json(out.map((completionResponse) => ({ completionResponse })));
  });
}
