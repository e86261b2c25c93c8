// Shared steps of the topology tests: allocate with client-built transactions, a user to act as a party,
// and execute with chosen signatures.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import {
  type Answer,
  call,
  executeBody,
  type Key,
  type Party,
  prepareOn,
  type Sandbox,
  tapCommand,
} from './helpers.ts';
import { b64, fingerprint, multiHash, sig, txHash } from './topology-encoder.ts';

export const ALLOCATE = '/v2/parties/external/allocate';
export const GENERATE = '/v2/parties/external/generate-topology';
const EXEC = '/v2/interactive-submission/executeAndWaitForTransaction';

export interface Onboarding {
  txs: Uint8Array[];
  /** Keys signing the multi-hash over all `txs`. */
  multi?: Key[];
  /** Keys signing each transaction's own hash, by index. */
  perTx?: Record<number, Key[]>;
}

export function allocateBody(sb: Sandbox, o: Onboarding, extra: Record<string, unknown> = {}) {
  const mh = multiHash(o.txs);
  return {
    synchronizer: sb.state.defaultSynchronizer,
    onboardingTransactions: o.txs.map((t, i) => ({
      transaction: b64(t),
      ...(o.perTx?.[i] ? { signatures: o.perTx[i]!.map((k) => sig(k, txHash(t))) } : {}),
    })),
    ...(o.multi ? { multiHashSignatures: o.multi.map((k) => sig(k, mh)) } : {}),
    ...extra,
  };
}

export function allocate(base: string, admin: string, body: unknown): Promise<Answer> {
  return call(base, 'POST', ALLOCATE, body, admin);
}

/** The legacy JsCantonError of a topology failure on allocate (external-party-keys.md §4.4). */
export function expectLegacy(
  a: Answer,
  code: string,
  status = 400,
  grpc = 3,
): { code: string; cause: string } {
  expect(a.status, a.text).toBe(status);
  expect(a.json.code.startsWith(`${code}(`), a.text).toBe(true);
  expect(a.json.errorCategory).toBe(-1);
  expect(a.json.grpcCodeValue).toBe(grpc);
  expect(a.json.cause).toBe(`${grpc === 3 ? 'INVALID_ARGUMENT' : 'NOT_FOUND'}: ${a.json.code}`);
  return a.json;
}

/** A user with CanActAs `partyId`, to prepare for it; `key` is only the default signer of `executeBody`. */
export async function actor(sb: Sandbox, admin: string, partyId: string, key: Key): Promise<Party> {
  const userId = `u-${randomUUID().slice(0, 8)}`;
  const created = await call(
    sb.url,
    'POST',
    '/v2/users',
    {
      user: { id: userId, primaryParty: partyId, isDeactivated: false, identityProviderId: '' },
      rights: [{ kind: { CanActAs: { value: { party: partyId } } } }],
    },
    admin,
  );
  expect(created.status, created.text).toBe(200);
  return { partyId, fingerprint: fingerprint(key), key, userId, token: await sb.mintToken(userId) };
}

export type Scheme = 'HASHING_SCHEME_VERSION_V2' | 'HASHING_SCHEME_VERSION_V3';

/** Prepares a tap for `party` and executes it signed by `signers` (in order, repeats allowed). */
export async function executeSignedBy(
  sb: Sandbox,
  party: Party,
  signers: Key[],
  scheme: Scheme = 'HASHING_SCHEME_VERSION_V3',
) {
  const prepared = await prepareOn(sb, party, [tapCommand(sb, party.partyId, '1.0000000000')], {
    hashingSchemeVersion: scheme,
  });
  const hash = Buffer.from(prepared.preparedTransactionHash, 'base64');
  const body = executeBody(party, prepared);
  body.partySignatures = {
    signatures: [{ party: party.partyId, signatures: signers.map((k) => sig(k, hash)) }],
  };
  const a = await call(sb.url, 'POST', EXEC, body, party.token);
  return { a, hashHex: `1220${hash.toString('hex')}` };
}

export function executeRefusal(
  party: string,
  valid: number,
  invalid: number,
  threshold: number,
  hashHex: string,
): string {
  return `The participant failed to execute the transaction: Received ${valid} valid signatures from distinct keys (${invalid} invalid), but expected at least ${threshold} valid for ${party}. Transaction hash to be signed: ${hashHex}. Ensure the correct transaction hash is signed with the correct key(s).`;
}
