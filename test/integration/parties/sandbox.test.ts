// End to end on the embedded sandbox over real HTTP: onboard a party with each algorithm, then a transaction
// prepared for it, re-hashed here and signed by the verifying signer, commits.
import { randomUUID } from 'node:crypto';
import { LedgerClient } from '@quill/canton/ledger';
import { decodePreparedTransactionBase64, hashPreparedTransaction } from '@quill/canton/transaction';
import { type Sandbox, startSandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboardExternalParty, PartyRegistry } from '../../../src/parties/index.ts';
import {
  KEY_ALGORITHMS,
  type KeyStore,
  partySignatures,
  type Signer,
  verifyingSigner,
} from '../../../src/signing/index.ts';
import { tempStore } from '../../support/keys.ts';
import { referenceHashHex } from '../../support/oracle.ts';

let sandbox: Sandbox;
let ledger: LedgerClient;
let keys: KeyStore;
let signer: Signer;
let registry: PartyRegistry;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, scanPort: 0, host: '127.0.0.1', auth: 'none' });
  ledger = new LedgerClient({ baseUrl: sandbox.url });
  keys = await tempStore();
  signer = verifyingSigner(keys);
  registry = new PartyRegistry({ dir: keys.dir });
});
afterAll(() => sandbox?.close());

describe.each(['HASHING_SCHEME_VERSION_V2', 'HASHING_SCHEME_VERSION_V3'] as const)(
  'sandbox, %s',
  (scheme) => {
    it.each(KEY_ALGORITHMS)('%s: onboard, then a signed transaction commits', async (algorithm) => {
      const key = await keys.generate(algorithm, `e2e ${algorithm}`);
      const party = await onboardExternalParty({
        ledger,
        signer,
        keys,
        registry,
        keyFingerprint: key.fingerprint,
        partyHint: `e2e-${algorithm}`,
      });
      expect(party.partyId).toBe(`e2e-${algorithm}::${key.fingerprint}`);

      const prepared = await ledger.prepare({
        userId: 'onboarding',
        commandId: randomUUID(),
        actAs: [party.partyId],
        synchronizerId: party.synchronizerId,
        packageIdSelectionPreference: [],
        commands: [
          {
            CreateCommand: {
              templateId: '#quill-e2e:E2E:Note',
              createArguments: { owner: party.partyId, n: '1' },
            },
          },
        ],
        hashingSchemeVersion: scheme,
      } as never);
      const hash = hashPreparedTransaction(
        decodePreparedTransactionBase64(prepared.preparedTransaction),
        prepared.hashingSchemeVersion as typeof scheme,
      );
      // Checked against an independent hasher (the sandbox hashes with Quill's own code); V3 has none.
      const reference = await referenceHashHex(prepared.preparedTransaction, scheme);
      if (reference !== undefined) expect(Buffer.from(hash).toString('hex')).toBe(reference);
      const signature = await signer.sign(key.fingerprint, hash);
      const { transaction } = await ledger.executeAndWaitForTransaction({
        preparedTransaction: prepared.preparedTransaction,
        partySignatures: partySignatures(party.partyId, [signature]),
        deduplicationPeriod: { Empty: {} },
        submissionId: randomUUID(),
        userId: 'onboarding',
        hashingSchemeVersion: prepared.hashingSchemeVersion,
      } as never);
      expect(transaction.updateId).toBeTruthy();
      expect(transaction.externalTransactionHash).toBe(Buffer.from(hash).toString('hex'));
    });
  },
);

it('the sandbox rejects a signature by a key that does not control the party', async () => {
  const owner = await keys.generate('ed25519');
  const other = await keys.generate('ed25519');
  const party = await onboardExternalParty({
    ledger,
    signer,
    keys,
    registry,
    keyFingerprint: owner.fingerprint,
    partyHint: 'victim',
  });
  const prepared = await ledger.prepare({
    userId: 'onboarding',
    commandId: randomUUID(),
    actAs: [party.partyId],
    synchronizerId: party.synchronizerId,
    packageIdSelectionPreference: [],
    commands: [
      {
        CreateCommand: {
          templateId: '#quill-e2e:E2E:Note',
          createArguments: { owner: party.partyId, n: '2' },
        },
      },
    ],
  } as never);
  const hash = Buffer.from(prepared.preparedTransactionHash, 'base64');
  const signature = await signer.sign(other.fingerprint, hash);
  await expect(
    ledger.executeAndWaitForTransaction({
      preparedTransaction: prepared.preparedTransaction,
      partySignatures: partySignatures(party.partyId, [signature]),
      deduplicationPeriod: { Empty: {} },
      submissionId: randomUUID(),
      userId: 'onboarding',
      hashingSchemeVersion: prepared.hashingSchemeVersion,
    } as never),
  ).rejects.toMatchObject({ status: 400 });
});
