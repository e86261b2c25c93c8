/** Command completions (`POST /v2/commands/completions`, list form like the updates list). */
import { z } from 'zod';
import { Int64, Int64Input, JsStatus, opt, TraceContext, variant } from './common.ts';
import { OffsetCheckpoint, SynchronizerTime } from './events.ts';
import { DeduplicationPeriod1 } from './submission.ts';

export const CompletionStreamRequest = z.object({
  /** Required unless the token names a user. */
  userId: opt(z.string()),
  /** Required by the spec; the relaxed decoder defaults it to empty, which the participant then refuses. */
  parties: opt(z.array(z.string())),
  beginExclusive: opt(Int64Input),
});
export type CompletionStreamRequest = z.infer<typeof CompletionStreamRequest>;

export const Completion1 = z.object({
  commandId: z.string(),
  status: opt(JsStatus),
  updateId: opt(z.string()),
  userId: z.string(),
  actAs: z.array(z.string()),
  submissionId: opt(z.string()),
  deduplicationPeriod: opt(DeduplicationPeriod1),
  traceContext: opt(TraceContext),
  offset: Int64,
  synchronizerTime: SynchronizerTime,
  paidTrafficCost: opt(Int64),
});
export type Completion1 = z.infer<typeof Completion1>;
export const Completion = z.object({ value: Completion1 });
export type Completion = z.infer<typeof Completion>;

export const CompletionResponse = z.union([
  variant('Completion', Completion),
  variant('Empty', z.object({})),
  variant('OffsetCheckpoint', OffsetCheckpoint),
]);
export type CompletionResponse = z.infer<typeof CompletionResponse>;

export const CompletionStreamResponse = z.object({ completionResponse: opt(CompletionResponse) });
export type CompletionStreamResponse = z.infer<typeof CompletionStreamResponse>;
/** The list form's body: a JSON array of `CompletionStreamResponse`. */
export const CompletionStreamResponseList = z.array(CompletionStreamResponse);
