// The record as stored: its JSON in the record hash's `record` field and the version of the schema it was written
// in beside it (`schemaVersion`). Every read parses it against that schema, so a value this code did not write,
// a damaged one, or one written by a newer Quill is refused (CORRUPT) instead of being served or acted on.
import { StoreError } from '../../redis/errors.ts';
import { SubmissionRecord } from '../record.ts';

/** The schema version this code writes (the record scripts write it beside each record). */
export const RECORD_SCHEMA_VERSION = 1;

/** A stored record: `version` is the hash's schemaVersion field (absent: written before versions, read as 1). */
export function decodeRecord(id: string, json: string, version: string | null | undefined): SubmissionRecord {
  const v = version === null || version === undefined ? 1 : Number(version);
  if (v !== RECORD_SCHEMA_VERSION)
    throw new StoreError(
      'CORRUPT',
      `submission ${id} was stored with record schema ${version}, which this version of Quill does not read (it reads ${RECORD_SCHEMA_VERSION})`,
    );
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new StoreError('CORRUPT', `submission ${id}: its stored record is not JSON`);
  }
  const parsed = SubmissionRecord.safeParse(value);
  if (!parsed.success)
    throw new StoreError(
      'CORRUPT',
      `submission ${id}: its stored record does not match schema ${RECORD_SCHEMA_VERSION} (${parsed.error.issues[0]?.path.join('.') ?? 'record'}: ${parsed.error.issues[0]?.message ?? 'invalid'})`,
    );
  return parsed.data;
}
