// The parts every command builds from its configuration: the key store, a ledger client, party onboarding.
import { type ConfigOf, requirePassphrase } from '../config.ts';
import { LedgerClient, ledgerTokenOption, type TokenOption } from '../ledger/index.ts';
import { onboardExternalParty, PartyRegistry } from '../parties/index.ts';
import { KeyStore, LocalSigner } from '../signing/index.ts';

/** The key store KEYS_DIR, the passphrase and KEYSTORE_SCRYPT_N describe; ConfigError without a passphrase. */
export function openKeyStore(config: ConfigOf<'keys'>): KeyStore {
  return new KeyStore({
    dir: config.keysDir,
    passphrase: requirePassphrase(config),
    ...(config.keystoreScryptN !== undefined ? { scrypt: { N: config.keystoreScryptN } } : {}),
  });
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
  const keys = openKeyStore(config);
  return onboardExternalParty({
    ledger: ledgerClient(config, o.ledgerUrl),
    signer: new LocalSigner(keys),
    keys,
    registry: new PartyRegistry({ dir: config.keysDir }),
    keyFingerprint: o.keyFingerprint,
    partyHint: o.partyHint,
    ...(o.synchronizerId !== undefined ? { synchronizerId: o.synchronizerId } : {}),
    ...(config.ledgerUserId ? { userId: config.ledgerUserId } : {}),
  });
}
