/**
 * The Canton Token Standard's API packages (hyperledger-labs/splice `token-standard/splice-api-token-*`), uploaded
 * and vetted as on every Canton Network validator's participant, so that reads filtering by their interfaces (as
 * the wallet SDK's do) are answered as there: no contract of the sandbox implements them yet, so they match nothing.
 */
import type { SandboxState } from './state/index.ts';

/** Package name → the interfaces (`Module:Entity`) it defines. */
const TOKEN_STANDARD_INTERFACES: Record<string, readonly string[]> = {
  'splice-api-token-metadata-v1': ['Splice.Api.Token.MetadataV1:AnyContract'],
  'splice-api-token-holding-v1': ['Splice.Api.Token.HoldingV1:Holding'],
  'splice-api-token-transfer-instruction-v1': [
    'Splice.Api.Token.TransferInstructionV1:TransferInstruction',
    'Splice.Api.Token.TransferInstructionV1:TransferFactory',
  ],
  'splice-api-token-allocation-v1': ['Splice.Api.Token.AllocationV1:Allocation'],
  'splice-api-token-allocation-request-v1': ['Splice.Api.Token.AllocationRequestV1:AllocationRequest'],
  'splice-api-token-allocation-instruction-v1': [
    'Splice.Api.Token.AllocationInstructionV1:AllocationInstruction',
    'Splice.Api.Token.AllocationInstructionV1:AllocationFactory',
  ],
};

export function uploadTokenStandardApis(state: SandboxState): void {
  for (const [name, interfaces] of Object.entries(TOKEN_STANDARD_INTERFACES)) {
    const pkg = state.packages.upload(name, '1.0.0');
    for (const q of interfaces) state.packages.addInterface(name, q);
    for (const p of [state.participantId, ...state.otherParticipants]) {
      for (const s of state.synchronizers) state.packages.vet(p, s.id, { packageId: pkg.packageId });
    }
  }
}
