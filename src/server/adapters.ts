// Adapters from the project's modules (transaction, signing, parties) to the pipeline's ports.
import type { KeyAdmin } from '../api/index.ts';
import { type KeyStore, KeyStoreError, type Signer } from '../signing/index.ts';
import type { AcceptPorts, HashingSchemeVersion, InspectedTransaction } from '../submissions/index.ts';
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
  };
}

export function acceptPorts(opts: { keys: KeyStore; signer: Signer; parties: PartyLookup }): AcceptPorts {
  return {
    inspect: inspectPrepared,
    partyKey: (party) => opts.parties.keyOf(party),
    keyStatus: async (fp) => {
      try {
        return (await opts.keys.get(fp)).status;
      } catch (err) {
        if (err instanceof KeyStoreError && (err.code === 'NOT_FOUND' || err.code === 'BAD_INPUT'))
          return undefined;
        throw err;
      }
    },
    sign: (fp, hash) => opts.signer.sign(fp, hash),
  };
}

export function keyAdmin(keys: KeyStore): KeyAdmin {
  return {
    generate: (algorithm, label) => keys.generate(algorithm, label ?? null),
    list: () => keys.list(),
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
