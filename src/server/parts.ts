// The parts every command builds from its configuration: the key store, a ledger client, party onboarding.

import { LedgerClient, ledgerTokenOption, type TokenOption } from '@quill/canton/ledger';
import { type ConfigOf, requirePassphrase } from '../config/index.ts';
import { onboardExternalParty, PartyRegistry } from '../parties/index.ts';
import {
  type KeyBackend,
  Keyring,
  KeyStore,
  openPkcs11Backend,
  type Signer,
  verifyingSigner,
} from '../signing/index.ts';

/** The key store KEYS_DIR, the passphrase and KEYSTORE_SCRYPT_N describe; ConfigError without a passphrase. */
export function openKeyStore(config: ConfigOf<'keys'>): KeyStore {
  return new KeyStore({
    dir: config.keysDir,
    passphrase: requirePassphrase(config),
    ...(config.keystoreScryptN !== undefined ? { scrypt: { N: config.keystoreScryptN } } : {}),
  });
}

/**
 * Every configured key backend behind one catalog: the encrypted files in KEYS_DIR (when a passphrase is set, or
 * when nothing else is configured: then the missing passphrase is the error) and the PKCS#11 token (PKCS11_*).
 */
export function openKeyring(config: ConfigOf<'keys'>): Keyring {
  const backends: KeyBackend[] = [];
  if (config.keystorePassphrase !== undefined || !config.pkcs11) backends.push(openKeyStore(config));
  if (config.pkcs11) backends.push(openPkcs11Backend({ ...config.pkcs11, dir: config.keysDir }));
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
