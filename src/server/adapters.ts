// Adapters from the project's modules (transaction, signing, parties) to the pipeline's ports.
import type { LedgerClient } from '@quill/canton/ledger';
import type { KeyAdmin, PartyAdmin } from '../api/index.ts';
import { onboardExternalParty, type PartyRegistry, type SigningSet, signingSetOf } from '../parties/index.ts';
import { type Keyring, type Signer, SigningError } from '../signing/index.ts';
import {
  type AcceptPorts,
  type Inspector,
  type SignaturePorts,
  SubmissionRefused,
} from '../submissions/index.ts';

/** Which keys sign for a party (src/parties PartyRegistry satisfies it through `partyServices`). */
export interface PartyLookup {
  keyOf(party: string): Promise<string | undefined>;
  /** Absent in harnesses that know only single-key parties: `keyOf` with threshold 1. */
  signingSet?(party: string): Promise<SigningSet | undefined>;
}

export function acceptPorts(opts: {
  keys: Keyring;
  signer: Signer;
  parties: PartyLookup;
  /** Decodes inline or on the inspection pool, by size. */
  inspector: Inspector;
}): AcceptPorts {
  return {
    inspect: (b64, scheme) => opts.inspector.inspect(b64, scheme),
    partyKey: (party) => opts.parties.keyOf(party),
    ...(opts.parties.signingSet
      ? { signingSet: (party: string) => opts.parties.signingSet?.(party) ?? Promise.resolve(undefined) }
      : {}),
    sign: refusingSign(opts.signer),
  };
}

/** The signer as the pipeline's `sign` port: a disabled or missing key is a refusal with its code. */
function refusingSign(signer: Signer): AcceptPorts['sign'] {
  return async (fp, hash) => {
    try {
      return await signer.sign(fp, hash);
    } catch (err) {
      if (err instanceof SigningError && err.code === 'DISABLED') {
        throw new SubmissionRefused(422, 'KEY_DISABLED', `key ${fp} is disabled`);
      }
      if (err instanceof SigningError && err.code === 'NOT_FOUND') {
        throw new SubmissionRefused(422, 'UNKNOWN_KEY', `key ${fp} is not in the key store`);
      }
      throw err;
    }
  };
}

/** The worker's view of signing sets and Quill's keys (re-signing after a key rotation), when the party lookup has sets. */
export function signaturePorts(opts: { signer: Signer; parties: PartyLookup }): SignaturePorts | undefined {
  const { signingSet } = opts.parties;
  if (!signingSet) return undefined;
  return { signingSet: (party) => signingSet.call(opts.parties, party), sign: refusingSign(opts.signer) };
}

/** Party lookup for the accept path and onboarding for the API, over the registry and the ledger. */
export function partyServices(opts: {
  registry: PartyRegistry;
  ledger: LedgerClient;
  signer: Signer;
  keys: Keyring;
  /** The wallet's ledger user, granted CanActAs for each party it onboards. */
  userId?: string;
}): PartyLookup & PartyAdmin {
  return {
    keyOf: async (party) => (await opts.registry.get(party))?.keyFingerprint,
    signingSet: async (party) => {
      const record = await opts.registry.get(party);
      return record ? signingSetOf(record) : undefined;
    },
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

export function keyAdmin(keys: Keyring): KeyAdmin {
  return {
    generate: (algorithm, label, backend) => keys.generate(algorithm, label ?? null, backend),
    list: () => keys.list(),
    survey: () => keys.survey(),
    get: async (fp) => {
      try {
        return await keys.get(fp);
      } catch (err) {
        if (err instanceof SigningError && err.code === 'NOT_FOUND') return undefined;
        throw err;
      }
    },
    disable: (fp) => keys.disable(fp),
    adopt: (backend, ref, label) => keys.adopt(backend, ref, label ?? null),
    backends: () => keys.describe(),
  };
}
