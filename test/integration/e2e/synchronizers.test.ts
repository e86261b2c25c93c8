// Issue 26, bug 5: a protocol-35 prepared transaction (hashing V3) signs the physical synchronizer id
// `<logical>::35-<serial>`, while /v2/state/connected-synchronizers lists logical ids. ALLOWED_SYNCHRONIZERS holds
// what an operator copies from that listing: compared by logical id, it allows V2 and V3 transactions alike.

import type { Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { noteCommand, prepareOn, startFullWallet, startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startFullWallet>>;
let party: string;

beforeAll(async () => {
  sandbox = await startLedger();
  const listed = sandbox.state.defaultSynchronizer; // what connected-synchronizers lists
  w = await startFullWallet(sandbox, walletConfig(inject('redisUrl'), { ALLOWED_SYNCHRONIZERS: listed }));
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  const onboarded = await w.call('POST', '/wallet/v1/parties', {
    keyFingerprint: key.json.fingerprint,
    partyHint: 'synchronizers',
  });
  party = onboarded.json.partyId as string;
});
afterAll(async () => {
  await w?.wallet.close();
  await sandbox?.close();
});

describe('ALLOWED_SYNCHRONIZERS with the logical id', () => {
  for (const scheme of ['HASHING_SCHEME_VERSION_V2', 'HASHING_SCHEME_VERSION_V3'] as const) {
    it(`accepts a ${scheme} transaction, and the preview shows both forms`, async () => {
      const prepared = await prepareOn(w.client, party, noteCommand(party), scheme);
      const res = await w.call('POST', '/wallet/v1/submissions?wait=10', prepared);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.status).toBe('committed');
      const shown = await w.call('GET', `/wallet/v1/submissions/${res.json.id}/preview`);
      const logical = sandbox.state.defaultSynchronizer;
      expect(shown.json.preview).toMatchObject({
        logicalSynchronizerId: logical,
        synchronizerId: scheme === 'HASHING_SCHEME_VERSION_V3' ? `${logical}::35-0` : logical,
      });
    });
  }
});
