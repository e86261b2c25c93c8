/**
 * Building blocks of the JSON Ledger API v2 wire encoding (reference: ledger-json-api.md §1.5–1.7).
 *
 * Conventions used by every schema file in this folder:
 * - Names match the components of `ledger-json-api-openapi-3.5.yaml` exactly (`X` and `type X`).
 * - Response schemas accept `null` for every optional field (Scala `None` is printed as `null`): use `opt()`.
 * - Request schemas accept what the participant's decoder accepts: unknown keys are stripped (circe
 *   `strictDecoding = false`), optional fields may be missing or `null`, int64 may be a numeric string.
 *   Fields that proto-generated request types default (relaxed codec, §1.6) are optional here even when the
 *   spec's `required` list names them; the client still always sends them.
 * - Variant (oneof) objects have exactly one key named after the variant (`variant()`).
 */
import { z } from 'zod';

/** Largest offset we handle as a JS number: offsets beyond 2^53 are not produced by a real participant. */
const SAFE = Number.MAX_SAFE_INTEGER;

/** int64 as the participant emits it: a JSON number (responses). */
export const Int64 = z.number().int().min(-SAFE).max(SAFE);
/** int64 as the participant's decoder reads it: a JSON number or a numeric string (requests). */
export const Int64Input = z
  .union([Int64, z.string().regex(/^-?\d{1,16}$/, 'expected an integer or a numeric string')])
  .transform((v) => Number(v))
  .pipe(Int64);
export const Int32 = z
  .number()
  .int()
  .min(-(2 ** 31))
  .max(2 ** 31 - 1);
/** int32 on input: the decoder also takes numeric strings. */
export const Int32Input = z
  .union([Int32, z.string().regex(/^-?\d{1,10}$/, 'expected an integer or a numeric string')])
  .transform((v) => Number(v))
  .pipe(Int32);

/** google.protobuf.Timestamp: ISO-8601 instant (`Instant.parse`), e.g. `2025-01-01T12:00:00.123456Z`. */
export const Timestamp = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/,
    'expected an ISO-8601 timestamp',
  );

/**
 * Standard base64 with padding (java.util.Base64). A backtracking regex overflows the engine's stack on inputs of a
 * few million characters, and a loop over the characters takes tens of milliseconds on the request thread for one
 * megabyte-sized transaction. So it is checked natively: every character but the last four is a base64 character
 * exactly when the string decoded and encoded again (which only ever writes base64 characters, `=` only at its
 * end) agrees with it there; the last four, whose padding and spare bits re-encoding may change, are checked one
 * by one.
 */
export function isStandardBase64(s: string): boolean {
  const n = s.length;
  if (n % 4 !== 0) return false;
  const tail = Math.max(0, n - 4);
  if (tail > 0) {
    const again = Buffer.from(s, 'base64').toString('base64');
    if (again.length !== n || again.slice(0, tail) !== s.slice(0, tail)) return false;
  }
  const pad = n > 0 && s.charCodeAt(n - 1) === 61 ? (s.charCodeAt(n - 2) === 61 ? 2 : 1) : 0;
  for (let i = tail; i < n - pad; i++) {
    const c = s.charCodeAt(i);
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
    if (!ok) return false;
  }
  return true;
}

/** bytes: standard base64 with padding (java.util.Base64). */
export const Base64 = z.string().refine(isStandardBase64, 'expected standard base64');

/** A public key fingerprint as the participant writes it: `1220` (sha256 multihash) + 64 hex digits. */
export const FINGERPRINT_PATTERN = /^1220[0-9a-f]{64}$/;

/** Optional field of a response (or lenient request): missing or `null`. */
export function opt<T extends z.ZodType>(schema: T) {
  return schema.nullish();
}

/** A single-key variant object `{ "<name>": <schema> }` (circe ADT encoding, no discriminator). */
export function variant<K extends string, T extends z.ZodType>(name: K, schema: T) {
  return z.strictObject({ [name]: schema } as { [P in K]: T });
}

/** google.protobuf.Empty / oneof Empty: `{}` (extra keys ignored). */
export const Empty = z.object({});
export type Empty = z.infer<typeof Empty>;

/** protobuf unknown-field bag the encoder sometimes emits (`{"fields":{}}`); content is never used. */
export const Field = z.object({
  varint: opt(z.array(Int64)),
  fixed64: opt(z.array(Int64)),
  fixed32: opt(z.array(Int32)),
  lengthDelimited: opt(z.array(z.string())),
});
export type Field = z.infer<typeof Field>;
export const Map_Int_Field = z.record(z.string(), Field);
export type Map_Int_Field = z.infer<typeof Map_Int_Field>;
export const UnknownFieldSet = z.object({ fields: Map_Int_Field.nullish().default({}) });
export type UnknownFieldSet = z.infer<typeof UnknownFieldSet>;

/** google.protobuf.Duration: `{seconds, nanos}`, missing parts default to 0 on input (never "30s"). */
export const Duration = z.object({
  seconds: Int64Input.nullish().transform((v) => v ?? 0),
  nanos: Int32Input.nullish().transform((v) => v ?? 0),
  unknownFields: opt(UnknownFieldSet),
});
export type Duration = z.infer<typeof Duration>;

export const Map_String = z.record(z.string(), z.string());
export type Map_String = z.infer<typeof Map_String>;

export const TraceContext = z.object({ traceparent: opt(z.string()), tracestate: opt(z.string()) });
export type TraceContext = z.infer<typeof TraceContext>;

/** Kubernetes-style metadata of users and parties. */
export const ObjectMeta = z.object({ resourceVersion: opt(z.string()), annotations: opt(Map_String) });
export type ObjectMeta = z.infer<typeof ObjectMeta>;

/** google.protobuf.Any as the JSON API prints it (status details). */
export const ProtoAny = z.object({
  typeUrl: z.string(),
  value: z.string(),
  unknownFields: opt(UnknownFieldSet),
  valueDecoded: opt(z.string()),
});
export type ProtoAny = z.infer<typeof ProtoAny>;

/** google.rpc.Status (interface view status, completion status). */
export const JsStatus = z.object({ code: Int32, message: z.string(), details: opt(z.array(ProtoAny)) });
export type JsStatus = z.infer<typeof JsStatus>;

/** A Daml-LF JSON value (record, variant, list, …): structure depends on the package, so not checked here. */
export const LfValue = z.unknown();

/**
 * A field of a proto-generated request type: the relaxed codec fills a missing (or null) value with the
 * proto default, so the parsed value is always present.
 */
export function protoDefault<T extends z.ZodType>(schema: T, value: z.output<T>) {
  return schema.nullish().transform((v): z.output<T> => (v ?? value) as z.output<T>);
}
