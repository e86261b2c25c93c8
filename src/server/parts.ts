// The parts every command builds from its configuration: the key store, a ledger client, party onboarding.

import { open } from 'node:fs/promises';
import { echo } from '@quill/canton/errors';
import { LedgerClient, LedgerError, ledgerTokenOption, type TokenOption } from '@quill/canton/ledger';
import { ConfigError, type ConfigOf } from '../config/index.ts';
import { CommandFailure, UsageError } from '../errors.ts';
import type { Log } from '../log.ts';
import { onboardExternalParty, PartyRegistry } from '../parties/index.ts';
import {
  KEY_BACKEND_TYPES,
  type KeyBackend,
  Keyring,
  type Signer,
  SigningError,
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

/**
 * AUDIT_KEY as the checkpointer needs it, checked before the wallet starts (exit 2 otherwise): a key of the ring,
 * active, and no party's signing key (an audit key signs the chain's checkpoints and nothing else); and
 * AUDIT_CHECKPOINT_FILE opens to append.
 */
export async function checkAuditKey(
  keys: Keyring,
  config: ConfigOf<'keys' | 'audit'>,
  registry = new PartyRegistry({ dir: config.keysDir }),
): Promise<void> {
  const { key, file } = config.auditCheckpoints;
  if (!key || !file) return;
  const refuse = (why: string) => new UsageError(`refusing to start: AUDIT_KEY ${key} ${why}`);
  let status: string;
  try {
    status = (await keys.get(key)).status;
  } catch (err) {
    if (err instanceof SigningError && err.code === 'NOT_FOUND')
      throw refuse('is not a key of the key ring (KEYS_DIR, PKCS11_*)');
    throw refuse(`cannot be read: ${(err as Error).message}`);
  }
  if (status !== 'active') throw refuse('is disabled: an audit key must be active');
  const party = (await registry.list()).find((p) => p.keyFingerprint === key);
  if (party)
    throw refuse(
      `is the signing key of party ${echo(party.partyId)}: the audit key must be a key of its own (make one with quill keys generate)`,
    );
  try {
    await (await open(file, 'a', 0o600)).close();
  } catch (err) {
    throw new UsageError(
      `refusing to start: AUDIT_CHECKPOINT_FILE ${file} cannot be opened to append (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
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

/**
 * The ledger user the wallet executes as: LEDGER_USER_ID, else the user its ledger token names (`GET
 * /v2/authenticated-user`). A participant refuses an empty `userId` when its auth is off (400 INVALID_TOKEN,
 * Authorizer.defaultUserId) and a token acting as another user always (403, Claims.validForUser), so a wallet
 * that cannot know its user, or whose LEDGER_USER_ID is not its token's user, refuses to start (exit 2).
 */
export async function resolveLedgerUser(o: {
  configured: string | undefined;
  client: Pick<LedgerClient, 'authenticatedUser'>;
  hasToken: boolean;
  log: Log;
}): Promise<string> {
  const { configured } = o;
  if (!o.hasToken) {
    if (configured) return configured;
    throw new UsageError(
      'refusing to start: no ledger user is known: set LEDGER_USER_ID (without a ledger token nothing names ' +
        'one, and a participant without auth refuses an empty userId)',
    );
  }
  let named: string | undefined;
  try {
    named = (await o.client.authenticatedUser()).user?.id || undefined;
  } catch (err) {
    const status = err instanceof LedgerError ? err.status : undefined;
    // 400: the participant's auth is off (no user in any token): only LEDGER_USER_ID can say.
    if (status === 400) named = undefined;
    else if (configured) {
      o.log('warn', 'cannot check LEDGER_USER_ID against the ledger token\u2019s user', {
        error: err instanceof Error ? err.message : String(err),
      });
      return configured;
    } else if (status === 401 || status === 403) {
      throw new UsageError(
        `refusing to start: the ledger refuses the wallet's token (GET /v2/authenticated-user answered ${status}): ` +
          'fix LEDGER_TOKEN, LEDGER_TOKEN_FILE or LEDGER_OAUTH_*, or set LEDGER_USER_ID',
      );
    } else {
      throw new CommandFailure(
        `cannot learn the ledger user from GET /v2/authenticated-user (${err instanceof Error ? err.message : 'failed'}): set LEDGER_USER_ID, or start again when the ledger answers`,
      );
    }
  }
  if (configured && named && named !== configured) {
    throw new UsageError(
      `refusing to start: LEDGER_USER_ID is ${echo(configured)} but the ledger token is for user ${echo(named)}, ` +
        'and the participant refuses every execution as another user (403): unset LEDGER_USER_ID or make them agree',
    );
  }
  const user = configured ?? named;
  if (!user)
    throw new UsageError(
      'refusing to start: no ledger user is known: set LEDGER_USER_ID (the ledger names no user for the token: ' +
        'its auth is off, and it refuses an empty userId)',
    );
  return user;
}
