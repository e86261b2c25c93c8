/**
 * Disclosed contracts of a prepare request, checked as the participant's ValidateDisclosedContracts does: the blob
 * must decode ("Unable to decode disclosed contract event payload"), name the same contract id and template id as
 * the request ("Mismatch between DisclosedContract.contract_id / template_id …"), and describe the contract exactly
 * (authenticateFatContractInstance: "Contract authentication failed …"); each is 400 INVALID_ARGUMENT. The sandbox
 * knows every contract it issued a blob for, so the contract is looked up by the blob's id.
 */
import type { DisclosedContract } from '@quill/canton/ledger';
import { blobDescribes, decodeBlob } from './blob.ts';
import { err } from './errors.ts';
import type { Contract, SandboxState } from './state/index.ts';

function sameTemplate(state: SandboxState, given: string, c: Contract): boolean {
  if (!given.startsWith('#')) return given === c.templateId;
  const [, module, entity] = c.templateId.split(':');
  return (
    given === `#${c.packageName}:${module}:${entity}` && state.packages.idForName(c.packageName) !== undefined
  );
}

export function disclosedContracts(state: SandboxState, list: readonly DisclosedContract[]): Contract[] {
  return list.map((d) => {
    const decoded = d.createdEventBlob === '' ? undefined : decodeBlob(d.createdEventBlob);
    if (!decoded)
      throw err.invalidArgument(
        'Unable to decode disclosed contract event payload: not a created event blob',
      );
    if (d.contractId && d.contractId !== decoded.contractId)
      throw err.invalidArgument(
        `Mismatch between DisclosedContract.contract_id (${d.contractId}) and contract_id from decoded DisclosedContract.created_event_blob (${decoded.contractId})`,
      );
    const c = state.contracts.get(decoded.contractId);
    if (d.templateId && !(c ? sameTemplate(state, d.templateId, c) : d.templateId === decoded.templateId))
      throw err.invalidArgument(
        `Mismatch between DisclosedContract.template_id (${d.templateId}) and template_id from decoded DisclosedContract.created_event_blob (${decoded.templateId})`,
      );
    if (!c || c.templateId !== decoded.templateId || !blobDescribes(decoded, c))
      throw err.invalidArgument(
        `Contract authentication failed for attached disclosed contract with id (${decoded.contractId}): the blob does not describe a contract of this ledger`,
      );
    return c;
  });
}
