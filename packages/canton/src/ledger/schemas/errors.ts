/** The participant's JSON error body (ledger-json-api.md §1.7). */
import { z } from 'zod';
import { Int32, Map_String, opt } from './common.ts';

/** A `[key, value]` resource pair such as `["UPDATE_ID", "1220…"]`. */
export const Tuple2_String_String = z.tuple([z.string(), z.string()]);
export type Tuple2_String_String = z.infer<typeof Tuple2_String_String>;

export const JsCantonError = z.object({
  /** Error id, e.g. `DUPLICATE_COMMAND`; a gRPC status description for legacy errors (category -1). */
  code: z.string(),
  cause: z.string(),
  correlationId: opt(z.string()),
  traceId: opt(z.string()),
  /** e.g. `category`, `definite_answer`, `earliest_offset`, `completion_offset`. */
  context: Map_String,
  resources: opt(z.array(Tuple2_String_String)),
  errorCategory: Int32,
  grpcCodeValue: opt(Int32),
  /** Scala duration text such as `"1 second"`; present for retryable categories. */
  retryInfo: opt(z.string()),
  definiteAnswer: opt(z.boolean()),
});
export type JsCantonError = z.infer<typeof JsCantonError>;
