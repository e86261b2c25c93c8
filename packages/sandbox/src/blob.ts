/**
 * `createdEventBlob`: the participant's is a serialized FatContractInstance (contract id, template, argument,
 * parties, creation time), authenticated by the contract id's suffix. The sandbox's is its own opaque encoding of
 * the same facts — `quill-sandbox-contract/v1`, contract id, template id, and a digest of the rest — so that prepare
 * can tell a blob it issued for a contract from one that was altered or made up (ValidateDisclosedContracts).
 */
import { createHash } from 'node:crypto';
import { valueToJson } from './lfjson.ts';
import type { Contract } from './state/index.ts';

const MARKER = 'quill-sandbox-contract/v1';

function digest(c: Contract): string {
  const facts = [valueToJson(c.argument), c.signatories, c.stakeholders, c.createdAt, c.packageName];
  return createHash('sha256').update(JSON.stringify(facts)).digest('hex');
}

export function createdEventBlob(c: Contract): string {
  return Buffer.from([MARKER, c.contractId, c.templateId, digest(c)].join('\n')).toString('base64');
}

/** What a blob says: its contract id and template id, and whether it describes `c` exactly. */
export function decodeBlob(
  blob: string,
): { contractId: string; templateId: string; digest: string } | undefined {
  const parts = Buffer.from(blob, 'base64').toString('utf8').split('\n');
  if (parts.length !== 4 || parts[0] !== MARKER) return undefined;
  const [, contractId = '', templateId = '', sum = ''] = parts;
  return { contractId, templateId, digest: sum };
}

export function blobDescribes(decoded: { digest: string }, c: Contract): boolean {
  return decoded.digest === digest(c);
}
