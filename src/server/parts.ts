// The parts every command builds from its configuration: the key store, a ledger client, party onboarding.

import { LedgerClient, ledgerTokenOption, type TokenOption } from '@quill/canton/ledger';
import { ConfigError, type ConfigOf } from '../config/index.ts';
import { onboardExternalParty, PartyRegistry } from '../parties/index.ts';
import {
  KEY_BACKEND_TYPES,
  type KeyBackend,
  Keyring,
  type Signer,
  verifyingSigner,
} from '../signing/index.ts';

/**
 * Every configured key backend (src/signing/backends.ts) behind one catalog. With none configured, the key store
 * is what is missing: its passphrase is the error.
 */
export function openKeyring(config: ConfigOf<'keys'>): Keyring {
  const backends: KeyBackend[] = KEY_BACKEND_TYPES.flatMap((type) => {
    const options = config.keyBackends[type.name];
    return options === undefined ? [] : [type.open(options)];
  });
  if (backends.length === 0)
    throw new ConfigError(['no key-store passphrase: set KEYSTORE_PASSPHRASE or KEYSTORE_PASSPHRASE_FILE']);
  return new Keyring(backends, config.defaultKeyBackend);
}

/** The one signer of a process: every backend's signatures verified before they leave. */
export function signerFromConfig(keyring: Keyring): Signer {
  return verifyingSigner(keyring);
}

/** A client for `baseUrl` with the configured token (LEDGER_TOKEN, LEDGER_TOKEN_FILE or LEDGER_OAUTH_*). */
export function ledgerClient(
  config: ConfigOf<'ledger'>,
  baseUrl: string,
  token: TokenOption | undefined = ledgerTokenOption(config.ledgerToken, {
    timeoutMs: config.ledgerTimeoutMs,
  }),
): LedgerClient {
  return new LedgerClient({ baseUrl, timeoutMs: config.ledgerTimeoutMs, ...(token ? { token } : {}) });
}

/** `quill parties onboard`: allocates `<hint>::<fingerprint>` on the ledger at `ledgerUrl` and records it. */
export async function onboardFromConfig(
  config: ConfigOf<'keys' | 'ledger'>,
  o: { ledgerUrl: string; keyFingerprint: string; partyHint: string; synchronizerId?: string },
) {
  const keys = openKeyring(config);
  try {
    return await onboardExternalParty({
      ledger: ledgerClient(config, o.ledgerUrl),
      signer: signerFromConfig(keys),
      keys,
      registry: new PartyRegistry({ dir: config.keysDir }),
      keyFingerprint: o.keyFingerprint,
      partyHint: o.partyHint,
      ...(o.synchronizerId !== undefined ? { synchronizerId: o.synchronizerId } : {}),
      ...(config.ledgerUserId ? { userId: config.ledgerUserId } : {}),
    });
  } finally {
    await keys.close();
  }
}
