/**
 * Interactive submission: prepare, and the three execute forms. Execution registers the change id as in
 * flight, applies injected latency/pause, commits atomically, and can then be told to hide the outcome
 * (504 REQUEST_TIME_OUT, 503 text or a dropped socket: the ambiguous case the wallet must reconcile).
 *
 * A rejection after the submission was registered in flight (duplicate, deduplication period too early,
 * NOT_SEQUENCED_TIMEOUT, LOCAL_VERDICT_*) is a failed completion at a new offset on the participant
 * (ProtocolProcessor.submitWithTracking → observeSubmissionError; the mediator's verdict): plain `execute`
 * answers `{}`, the waiting forms relay that completion's status (SubmissionTracker.Result.fromCompletion).
 */
import { endpoints as E, type JsExecuteSubmissionRequest, wildcardEventFormat } from '@quill/canton/ledger';
import { effectiveUserId, requireExecuteAs, requireReadAs } from '../auth.ts';
import { err, SandboxError, violationError } from '../errors.ts';
import { checkDeduplication, commitExecution, planExecution } from '../execute.ts';
import { tamperPrepareRequest, UNAVAILABLE_TEXT } from '../faults.ts';
import { checkKnownIdentifiers } from '../identifiers.ts';
import { prepare } from '../prepare.ts';
import { renderTransaction, transactionFormatOf } from '../render.ts';
import type { TransactionUpdate } from '../state/index.ts';
import { type App, type Ctx, caller, decodeJson, type Services, serve } from './http.ts';

export const EXECUTE_PATHS: ReadonlySet<string> = new Set(
  [E.execute, E.executeAndWait, E.executeAndWaitForTransaction].map((e) => e.path),
);

/** Errors the participant answers synchronously, before registering the submission: no completion. */
const SYNCHRONOUS = new Set([
  'INVALID_FIELD',
  'NEGATIVE_OFFSET',
  'PERMISSION_DENIED',
  'SUBMISSION_ALREADY_IN_FLIGHT',
]);

/** A W3C traceparent header the participant would take as the submission's trace context. */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function submissionRoutes(app: App, services: Services): void {
  const { state, faults } = services;

  serve(app, E.prepare, async (c, { body }) => {
    const who = caller(c);
    effectiveUserId(who, body.userId);
    requireReadAs(who, [...body.actAs, ...(body.readAs ?? [])]);
    const tamper = faults.pick('tamperPrepare', c.req.path)?.tamper;
    if (!tamper) return c.json(prepare(state, body));
    // The wire request is rewritten (Hono keeps its text), then decoded and checked again as a request: what the
    // participant would refuse, the sandbox still refuses.
    const raw: unknown = JSON.parse(await c.req.text());
    const tampered = decodeJson(JSON.stringify(tamperPrepareRequest(raw, tamper)), E.prepare.body);
    const violation = E.prepare.rule?.(tampered, {}, {});
    if (violation) throw violationError(violation);
    return c.json(prepare(state, tampered));
  });

  /**
   * Runs one execution; returns the committed update, or a Response when a fault hides the outcome. With
   * `async` (plain `execute`), rejections after the submission was accepted for processing (duplicate,
   * inactive inputs, timeout) become failed completions instead of HTTP errors, as on the participant.
   */
  async function execute(
    c: Ctx,
    body: JsExecuteSubmissionRequest,
    async = false,
  ): Promise<TransactionUpdate | Response | undefined> {
    const path = c.req.path;
    const who = caller(c);
    const userId = effectiveUserId(who, body.userId);
    const plan = planExecution(state, body, userId);
    // Test instrument (state.receivedTraceparents): the trace headers as received, before any check.
    state.receivedTraceparents.push({
      submissionId: plan.submissionId,
      traceparent: c.req.header('traceparent') ?? null,
      tracestate: c.req.header('tracestate') ?? null,
    });
    if (state.receivedTraceparents.length > 1000) state.receivedTraceparents.shift();
    requireExecuteAs(who, plan.actAs);
    const inFlight = state.inFlight.get(plan.changeKey);
    if (inFlight !== undefined)
      throw err.inFlight(inFlight, plan.changeId, plan.synchronizerId, inFlight === plan.submissionId);
    if (faults.pick('inFlight', path))
      throw err.inFlight(`${plan.submissionId}-concurrent`, plan.changeId, plan.synchronizerId);
    let record: TransactionUpdate;
    try {
      checkDeduplication(state, plan, state.nowMicros());
      state.inFlight.set(plan.changeKey, plan.submissionId);
      try {
        const latency = faults.pick('latency', path);
        if (latency) await sleep(latency.latencyMs ?? 100);
        await faults.whileUnpaused();
        const traceparent = c.req.header('traceparent');
        record = commitExecution(
          state,
          plan,
          traceparent && TRACEPARENT.test(traceparent) ? traceparent : undefined,
        );
      } finally {
        state.inFlight.delete(plan.changeKey);
      }
    } catch (e) {
      if (!(e instanceof SandboxError) || SYNCHRONOUS.has(e.code)) throw e;
      // ErrorCode.toMsg: `CODE(category,<correlation id, 8 characters>): cause`.
      const message = `${e.code}(${e.category},${plan.submissionId.slice(0, 8)}): ${e.cause_}`;
      state.reject(plan, { code: e.grpcCode, message });
      if (!async) throw e;
      return undefined;
    }
    const hide = faults.pick('timeoutAfterCommit', path);
    if (hide?.answer === 'drop') {
      c.env.incoming.socket.destroy();
      return new Response(null, { status: 500 });
    }
    if (hide?.answer === '503') return c.text(UNAVAILABLE_TEXT, 503);
    if (hide)
      return c.json(err.requestTimeout(plan.commandId, plan.submissionId).body(plan.submissionId), 504);
    return record;
  }

  /** Errors of a submission carry its submission id as correlation id. */
  async function tagged<T>(submissionId: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      if (e instanceof SandboxError) e.correlationId = submissionId;
      throw e;
    }
  }

  serve(app, E.execute, async (c, { body }) => {
    const out = await tagged(body.submissionId, () => execute(c, body, true));
    return out instanceof Response ? out : c.json({});
  });

  serve(app, E.executeAndWait, async (c, { body }) => {
    const out = await tagged(body.submissionId, () => execute(c, body));
    if (out === undefined) throw err.internal();
    return out instanceof Response ? out : c.json({ updateId: out.updateId, completionOffset: out.offset });
  });

  serve(
    app,
    E.executeAndWaitForTransaction,
    async (c, { body }) => {
      const out = await tagged(body.submissionId, () => execute(c, body));
      if (out === undefined) throw err.internal();
      if (out instanceof Response) return out;
      // Committed. Only now does the participant read the transaction with the caller's format, and refuse a
      // format it cannot read with: the caller learns of a rejected request for a transaction that committed.
      if (body.transactionFormat) {
        const violation = E.executeAndWaitForTransaction.rule?.(body, {}, {});
        if (violation) throw violationError(violation);
        checkKnownIdentifiers(state.packages, [body.transactionFormat.eventFormat]);
      }
      const format = transactionFormatOf(
        body.transactionFormat ?? {
          eventFormat: wildcardEventFormat(out.actAs, true),
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      )!;
      return c.json({ transaction: renderTransaction(out, format, true) });
    },
    {
      // The participant's authorization: reading the events the transaction format asks for needs read
      // rights for its parties, or CanReadAsAnyParty for any-party filters (transactionFormatClaims).
      authorize: (c, { body }) => {
        const ef = body.transactionFormat?.eventFormat;
        if (ef) requireReadAs(caller(c), Object.keys(ef.filtersByParty ?? {}), ef.filtersForAnyParty != null);
      },
    },
  );
}
