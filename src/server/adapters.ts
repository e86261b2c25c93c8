// Adapters from the project's modules (transaction, signing, parties) to the pipeline's ports.
import { ApiError, type KeyAdmin, type PartyAdmin } from '../api/index.ts';
import type { LedgerClient } from '../ledger/index.ts';
import { onboardExternalParty, PartyError, type PartyRegistry } from '../parties/index.ts';
import { type KeyStore, KeyStoreError, type Signer } from '../signing/index.ts';
import {
  type AcceptPorts,
  type HashingSchemeVersion,
  type InspectedTransaction,
  SubmissionRefused,
} from '../submissions/index.ts';
import { decodePreparedTransactionBase64, hashPreparedTransaction } from '../transaction/index.ts';

/** Which key controls a party (src/parties PartyRegistry satisfies it through `partyLookup`). */
export interface PartyLookup {
  keyOf(party: string): Promise<string | undefined>;
}

/** Strict decode + recomputed hash + the metadata the policy needs. */
export function inspectPrepared(b64: string, scheme: HashingSchemeVersion): InspectedTransaction {
  const tx = decodePreparedTransactionBase64(b64);
  const meta = tx.metadata;
  if (!meta?.submitterInfo) {
    throw Object.assign(new Error('the prepared transaction has no submitter metadata'), {
      code: 'NO_METADATA',
    });
  }
  const hash = hashPreparedTransaction(tx, scheme);
  return {
    hash,
    actAs: [...meta.submitterInfo.actAs],
    commandId: meta.submitterInfo.commandId,
    synchronizerId: meta.synchronizerId,
    ...(meta.maxRecordTime !== undefined
      ? { maxRecordTime: new Date(Number(meta.maxRecordTime / 1000n)) }
      : {}),
    preparationTime: new Date(Number(meta.preparationTime / 1000n)),
  };
}

export function acceptPorts(opts: { keys: KeyStore; signer: Signer; parties: PartyLookup }): AcceptPorts {
  return {
    inspect: inspectPrepared,
    partyKey: (party) => opts.parties.keyOf(party),
    sign: async (fp, hash) => {
      try {
        return await opts.signer.sign(fp, hash);
      } catch (err) {
        if (err instanceof KeyStoreError && err.code === 'DISABLED') {
          throw new SubmissionRefused(422, 'KEY_DISABLED', `key ${fp} is disabled`);
        }
        if (err instanceof KeyStoreError && err.code === 'NOT_FOUND') {
          throw new SubmissionRefused(422, 'UNKNOWN_KEY', `key ${fp} is not in the key store`);
        }
        throw err;
      }
    },
  };
}

/** Key-store and party errors as API errors: the caller's fault is a 4xx, a broken store a 503. */
function apiError(err: unknown): never {
  if (err instanceof KeyStoreError) {
    if (err.code === 'BAD_INPUT') throw new ApiError(400, 'INVALID_REQUEST', err.message);
    if (err.code === 'NOT_FOUND') throw new ApiError(404, 'NOT_FOUND', err.message);
    if (err.code === 'DISABLED') throw new ApiError(422, 'KEY_DISABLED', err.message);
    throw new ApiError(503, 'KEYSTORE_UNAVAILABLE', `the key store cannot be used: ${err.code}`);
  }
  if (err instanceof PartyError) {
    const status = {
      BAD_INPUT: 400,
      KEY_DISABLED: 422,
      MISMATCH: 422,
      NO_SYNCHRONIZER: 422,
      CONFLICT: 409,
    } as const;
    if (err.code === 'CORRUPT')
      throw new ApiError(503, 'PARTY_REGISTRY_UNAVAILABLE', 'the party registry is damaged');
    throw new ApiError(status[err.code], err.code, err.message);
  }
  throw err;
}

/** Party lookup for the accept path and onboarding for the API, over the registry and the ledger. */
export function partyServices(opts: {
  registry: PartyRegistry;
  ledger: LedgerClient;
  signer: Signer;
  keys: KeyStore;
  /** The wallet's ledger user, granted CanActAs for each party it onboards. */
  userId?: string;
}): PartyLookup & PartyAdmin {
  return {
    keyOf: async (party) => (await opts.registry.get(party))?.keyFingerprint,
    onboard: async (input) => {
      try {
        const p = await onboardExternalParty({
          ledger: opts.ledger,
          signer: opts.signer,
          keys: opts.keys,
          registry: opts.registry,
          keyFingerprint: input.keyFingerprint,
          partyHint: input.partyHint,
          ...(input.synchronizerId ? { synchronizerId: input.synchronizerId } : {}),
          ...(opts.userId ? { userId: opts.userId } : {}),
        });
        return { partyId: p.partyId, keyFingerprint: p.keyFingerprint, synchronizerId: p.synchronizerId };
      } catch (err) {
        return apiError(err);
      }
    },
    list: async () =>
      (await opts.registry.list()).map((p) => ({
        partyId: p.partyId,
        keyFingerprint: p.keyFingerprint,
        synchronizerId: p.synchronizerId,
      })),
  };
}

export function keyAdmin(keys: KeyStore): KeyAdmin {
  return {
    generate: (algorithm, label) => keys.generate(algorithm, label ?? null).catch(apiError),
    list: () => keys.list(),
    get: async (fp) => {
      try {
        return await keys.get(fp);
      } catch (err) {
        if (err instanceof KeyStoreError && err.code === 'NOT_FOUND') return undefined;
        throw err;
      }
    },
    disable: (fp) => keys.disable(fp).catch(apiError),
  };
}
