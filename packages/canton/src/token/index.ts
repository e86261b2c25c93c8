// The Canton Token Standard (CIP-56, hyperledger-labs/splice `token-standard/splice-api-token-*-v1`): its package
// names and ids, interface ids, metadata keys and the view shapes a wallet reads. One declaration for the sandbox's
// registry and the wallet's recognizers, policy, preview and holdings.

/** A V1 API package: its LF package name, package id (splice `daml/dars.lock`, version 1.0.0) and interfaces. */
export interface TokenStandardPackage {
  name: string;
  packageId: string;
  module: string;
  interfaces: readonly string[];
}

export const TOKEN_STANDARD_PACKAGES: readonly TokenStandardPackage[] = [
  {
    name: 'splice-api-token-metadata-v1',
    packageId: '4ded6b668cb3b64f7a88a30874cd41c75829f5e064b3fbbadf41ec7e8363354f',
    module: 'Splice.Api.Token.MetadataV1',
    interfaces: ['AnyContract'],
  },
  {
    name: 'splice-api-token-holding-v1',
    packageId: '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b',
    module: 'Splice.Api.Token.HoldingV1',
    interfaces: ['Holding'],
  },
  {
    name: 'splice-api-token-transfer-instruction-v1',
    packageId: '55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281',
    module: 'Splice.Api.Token.TransferInstructionV1',
    interfaces: ['TransferFactory', 'TransferInstruction'],
  },
  {
    name: 'splice-api-token-allocation-v1',
    packageId: '93c942ae2b4c2ba674fb152fe38473c507bda4e82b4e4c5da55a552a9d8cce1d',
    module: 'Splice.Api.Token.AllocationV1',
    interfaces: ['Allocation'],
  },
  {
    name: 'splice-api-token-allocation-instruction-v1',
    packageId: '275064aacfe99cea72ee0c80563936129563776f67415ef9f13e4297eecbc520',
    module: 'Splice.Api.Token.AllocationInstructionV1',
    interfaces: ['AllocationFactory', 'AllocationInstruction'],
  },
  {
    name: 'splice-api-token-allocation-request-v1',
    packageId: '6fe848530b2404017c4a12874c956ad7d5c8a419ee9b040f96b5c13172d2e193',
    module: 'Splice.Api.Token.AllocationRequestV1',
    interfaces: ['AllocationRequest'],
  },
];

/** Interface ids as clients write them (package-name reference format). */
export const HOLDING_INTERFACE = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
export const TRANSFER_FACTORY_INTERFACE =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
export const TRANSFER_INSTRUCTION_INTERFACE =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
export const ALLOCATION_FACTORY_INTERFACE =
  '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory';
export const ALLOCATION_INTERFACE =
  '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation';

/**
 * Whether an interface id names `qualified` (`#name:Module:Entity`). The participant writes interface ids in
 * package-id form (`718a…:Splice.Api.Token.HoldingV1:Holding`), clients in package-name form: match the
 * `Module:Entity` suffix, as the Splice CLI does (`interfaceId.endsWith("Splice.Api.Token.HoldingV1:Holding")`).
 */
export function isInterface(id: string | null | undefined, qualified: string): boolean {
  if (!id) return false;
  const suffix = qualified.slice(qualified.indexOf(':') + 1);
  return id === qualified || id.endsWith(`:${suffix}`);
}

/** Well-known metadata keys (splice `Splice.Amulet.TokenApiUtils`). */
export const META_KEYS = {
  /** The memo: a short human-readable reason; exchanges use it as the deposit account. */
  reason: 'splice.lfdecentralizedtrust.org/reason',
  txKind: 'splice.lfdecentralizedtrust.org/tx-kind',
  sender: 'splice.lfdecentralizedtrust.org/sender',
  burned: 'splice.lfdecentralizedtrust.org/burned',
} as const;

/** `InstrumentId { admin : Party, id : Text }`: `id` is unique per admin (registry party). */
export interface InstrumentId {
  admin: string;
  id: string;
}

/** `Lock { holders, expiresAt, expiresAfter, context }` as the JSON API renders it (RelTime as microseconds). */
export interface HoldingLock {
  holders: string[];
  expiresAt: string | null;
  expiresAfter: { microseconds: string } | null;
  context: string | null;
}

/** `HoldingView`, as an interface view of a created event carries it. Amounts are decimal strings. */
export interface HoldingView {
  owner: string;
  instrumentId: InstrumentId;
  amount: string;
  lock: HoldingLock | null;
  meta: { values: Record<string, string> };
}

/** `instrumentId` as one string for keys and logs: `admin/id` never collides (a party id holds no `/`). */
export function instrumentKey(i: InstrumentId): string {
  return `${i.admin}/${i.id}`;
}
