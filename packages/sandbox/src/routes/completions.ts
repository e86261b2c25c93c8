/**
 * `POST /v2/commands/completions` (list form, like the updates list): accepted completions come from
 * committed transactions, failed ones from rejections recorded by the asynchronous `execute`. Visible are
 * completions of the request's user (default: the token's) with an actAs party among `parties`.
 */
import { endpoints as E } from '@quill/canton/ledger';
import { effectiveUserId, requireReadAs } from '../auth.ts';
import { err } from '../errors.ts';
import type { UpdateRecord } from '../state/index.ts';
import { type App, caller, type Services, serve } from './http.ts';
import { type StreamForm, type StreamForms, streamUpdates } from './stream.ts';

function completion(rec: UpdateRecord, userId: string, parties: Set<string>) {
  // Topology events and admin reassignments complete no command.
  if (rec.kind === 'topology' || rec.kind === 'reassignment') return undefined;
  if (rec.userId !== userId || !rec.actAs.some((p) => parties.has(p))) return undefined;
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
        traceContext:
          rec.kind === 'transaction' && rec.traceparent
            ? { traceparent: rec.traceparent, tracestate: null }
            : null,
        offset: rec.offset,
        synchronizerTime: { synchronizerId: rec.synchronizerId, recordTime: rec.recordTime },
        paidTrafficCost: rec.kind === 'transaction' ? (rec.paidTrafficCost ?? 0) : 0,
      },
    },
  };
}

export function completionRoutes(app: App, services: Services, streams: StreamForms = new Map()): void {
  const { state } = services;
  const form: StreamForm<typeof E.completions.body> = {
    endpoint: E.completions,
    open(who, body) {
      // CommandCompletionServiceAuthorization (before request validation): MatchUserId, skipped for
      // CanReadAsAnyParty readers.
      const userId = effectiveUserId(who, body.userId, { anyPartyReaders: true });
      const parties = body.parties ?? [];
      if (parties.length === 0) throw err.missingField('parties');
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
      return {
        render: (rec) => completion(rec, userId, wanted),
        range: { begin, end: undefined, descending: false },
        wrap: (completionResponse) => ({ completionResponse }),
      };
    },
  };
  streams.set(E.completions.path, form as StreamForm);
  serve(app, E.completions, async (c, { body, query }) => {
    const { render, range, wrap } = form.open(caller(c), body);
    const out = await streamUpdates(services, render, {
      ...range,
      limit: query.limit ?? undefined,
      idleMs: query.stream_idle_timeout_ms ?? services.options.listWaitMs,
    });
    return c.json(out.map(wrap));
  });
}
