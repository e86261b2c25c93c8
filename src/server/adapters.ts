// Adapters from the project's modules (transaction, signing, parties) to the pipeline's ports.
import type { KeyAdmin, PartyAdmin } from '../api/index.ts';
import type { LedgerClient } from '../ledger/index.ts';
import { onboardExternalParty, type PartyRegistry } from '../parties/index.ts';
import { transactionFacts } from '../policy/index.ts';
import { type KeyStore, KeyStoreError, type Signer } from '../signing/index.ts';
import {
  type AcceptPorts,
  type HashingSchemeVersion,
  type InspectedTransaction,
  SubmissionRefused,
} from '../submissions/index.ts';
import {
  decodePreparedTransactionBase64,
  hashPreparedTransaction,
  previewPreparedTransaction,
  TransactionError,
} from '../transaction/index.ts';

/** Which key controls a party (src/parties PartyRegistry satisfies it through `partyLookup`). */
export interface PartyLookup {
  keyOf(party: string): Promise<string | undefined>;
}

/** Strict decode + recomputed hash + the metadata the policy needs. */
function inspectPrepared(b64: string, scheme: HashingSchemeVersion): InspectedTransaction {
  const tx = decodePreparedTransactionBase64(b64);
  const meta = tx.metadata;
  if (!meta?.submitterInfo) {
    throw new TransactionError('MISSING_METADATA', 'the prepared transaction has no submitter metadata');
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
    facts: () => transactionFacts(previewPreparedTransaction(tx, scheme)),
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
    // Key-store, party and ledger errors reach the API as they are: src/api/errors.ts maps them.
    onboard: async (input) => {
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
    generate: (algorithm, label) => keys.generate(algorithm, label ?? null),
    list: () => keys.list(),
    survey: () => keys.survey(),
    get: async (fp) => {
      try {
        return await keys.get(fp);
      } catch (err) {
        if (err instanceof KeyStoreError && err.code === 'NOT_FOUND') return undefined;
        throw err;
      }
    },
    disable: (fp) => keys.disable(fp),
  };
}
