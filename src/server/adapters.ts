// Adapters from the project's modules (transaction, signing, parties) to the pipeline's ports.
import type { LedgerClient } from '@quill/canton/ledger';
import type { KeyAdmin, PartyAdmin, PartyView } from '../api/index.ts';
import type { NewPartyBody } from '../api/party-schemas.ts';
import { defined } from '../config/env.ts';
import {
  changePartyKeys,
  type HostLedger,
  onboardExternalParty,
  onboardGovernedParty,
  PartyError,
  type PartyRecord,
  type PartyRegistry,
  type SigningSet,
  signingSetOf,
  type TopologyAdmin,
} from '../parties/index.ts';
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

/** What the API shows of a party: its namespace key, signing set and hosts. */
export function partyView(r: PartyRecord): PartyView {
  const set = signingSetOf(r);
  return {
    partyId: r.partyId,
    keyFingerprint: r.keyFingerprint,
    synchronizerId: r.synchronizerId,
    layout: set.layout,
    threshold: set.threshold,
    signingKeys: set.keys.map((k) => ({ fingerprint: k.fingerprint, holder: k.holder, label: k.label })),
    hosts: r.hosts ?? [],
    confirmationThreshold: r.confirmationThreshold ?? null,
    serial: r.serial ?? 1,
  };
}

/** Party lookup for the accept path and party administration for the API, over the registry and the ledger. */
export function partyServices(opts: {
  registry: PartyRegistry;
  ledger: LedgerClient;
  signer: Signer;
  keys: Keyring;
  /** The wallet's ledger user, granted CanActAs for each party it onboards. */
  userId?: string;
  /** The other hosting participants (LEDGER_HOSTS), by name. */
  hosts?: ReadonlyMap<string, HostLedger>;
  /** The participant's admin API (LEDGER_ADMIN_URL), for key changes. */
  admin?: TopologyAdmin;
  allocationTimeoutMs?: number;
}): PartyLookup & PartyAdmin {
  const governed = async (input: NewPartyBody, prepareOnly: boolean) => {
    // The namespace key signs topology only: unless one is named, a new one is made, once the request is good.
    if (prepareOnly && !input.namespaceKey) {
      throw new PartyError('BAD_INPUT', 'preparing needs the namespaceKey the party will use');
    }
    const namespaceKey =
      input.namespaceKey ??
      (async () =>
        (await opts.keys.generate('ed25519', `namespace of ${input.partyHint}`.slice(0, 120))).fingerprint);
    return onboardGovernedParty({
      primary: opts.ledger,
      hosts: opts.hosts ?? new Map(),
      signer: opts.signer,
      keys: opts.keys,
      registry: opts.registry,
      partyHint: input.partyHint,
      namespaceKey,
      signingKeys: input.signingKeys ?? [],
      threshold: input.threshold ?? 0,
      prepareOnly,
      ...defined({
        synchronizerId: input.synchronizerId,
        userId: opts.userId,
        otherHosts: input.hosts,
        confirmationThreshold: input.confirmationThreshold,
        signatures: input.signatures,
        allocationTimeoutMs: opts.allocationTimeoutMs,
      }),
    });
  };
  return {
    keyOf: async (party) => (await opts.registry.get(party))?.keyFingerprint,
    signingSet: async (party) => {
      const record = await opts.registry.get(party);
      return record ? signingSetOf(record) : undefined;
    },
    // Key-store, party and ledger errors reach the API as they are: src/api/errors.ts maps them.
    onboard: async (input) => {
      if (input.keyFingerprint === undefined) {
        const result = await governed(input, false);
        if (result.kind !== 'onboarded')
          throw new PartyError('SIGNATURES_NEEDED', 'proofs of possession missing');
        return partyView(result.record);
      }
      const p = await onboardExternalParty({
        ledger: opts.ledger,
        signer: opts.signer,
        keys: opts.keys,
        registry: opts.registry,
        keyFingerprint: input.keyFingerprint,
        partyHint: input.partyHint,
        ...defined({ synchronizerId: input.synchronizerId, userId: opts.userId }),
      });
      const record = await opts.registry.get(p.partyId);
      if (!record)
        throw new PartyError('CORRUPT', `party ${p.partyId} was onboarded but is not in the registry`);
      return partyView(record);
    },
    prepare: async (input) => {
      if (input.keyFingerprint !== undefined) {
        throw new PartyError('BAD_INPUT', 'preparing is for M-of-N parties (signingKeys and threshold)');
      }
      const result = await governed(input, true);
      if (result.kind !== 'prepared') throw new PartyError('CONFLICT', 'the party is already onboarded');
      return result.prepared;
    },
    list: async () => (await opts.registry.list()).map(partyView),
    get: async (partyId) => {
      const record = await opts.registry.get(partyId);
      return record ? partyView(record) : undefined;
    },
    changeKeys: async (partyId, change) => {
      const result = await changePartyKeys({
        admin: opts.admin,
        signer: opts.signer,
        keys: opts.keys,
        registry: opts.registry,
        partyId,
        ...defined({
          add: change.add,
          remove: change.remove,
          threshold: change.threshold,
          signatures: change.signatures,
          prepareOnly: change.prepareOnly,
          effectiveTimeoutMs: opts.allocationTimeoutMs,
        }),
      });
      if (result.kind === 'prepared') {
        const { serial, transaction, hash, awaiting } = result.prepared;
        return { prepared: { serial, transaction, hash, awaiting }, added: [], removed: [] };
      }
      return {
        party: partyView(result.record),
        added: result.added,
        removed: result.removed,
        hash: result.hash,
        signedBy: result.signedBy,
      };
    },
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
