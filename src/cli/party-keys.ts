// `quill parties create|show|keys`: M-of-N parties through the wallet API (QUILL_URL, QUILL_TOKEN), which audits
// each topology change: onboarding with signing keys, a namespace key and other hosts; a party's keys and
// hosts; adding or removing keys and changing the threshold (through the participant's admin API).
import { createPublicKey } from 'node:crypto';
import type { Command } from 'commander';
import { UsageError } from '../errors.ts';
import { type CliEnv, printJson, readInput } from './support.ts';
import { callWallet } from './wallet-client.ts';

const CURVE_SPECS: Record<string, string> = {
  prime256v1: 'SIGNING_KEY_SPEC_EC_P256',
  secp384r1: 'SIGNING_KEY_SPEC_EC_P384',
  secp256k1: 'SIGNING_KEY_SPEC_EC_SECP256K1',
};

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** An external signer's public key from a PEM file (`FILE` or `FILE:label`): its DER SPKI and key spec. */
export function externalKeyRef(arg: string): { publicKey: string; keySpec: string; label?: string } {
  const at = arg.indexOf(':');
  const file = at > 0 ? arg.slice(0, at) : arg;
  const label = at > 0 ? arg.slice(at + 1) : undefined;
  let key: ReturnType<typeof createPublicKey>;
  try {
    key = createPublicKey(readInput(file));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${file}: not a PEM public key`);
  }
  const keySpec =
    key.asymmetricKeyType === 'ed25519'
      ? 'SIGNING_KEY_SPEC_EC_CURVE25519'
      : CURVE_SPECS[key.asymmetricKeyDetails?.namedCurve ?? ''];
  if (!keySpec) throw new UsageError(`${file}: an Ed25519, P-256, P-384 or secp256k1 public key is needed`);
  const publicKey = key.export({ format: 'der', type: 'spki' }).toString('base64');
  return { publicKey, keySpec, ...(label ? { label } : {}) };
}

/** Signatures from JSON files, each `{format, signature, signedBy, signingAlgorithmSpec}`. */
function signatures(files: string[] | undefined): unknown[] | undefined {
  if (!files?.length) return undefined;
  return files.map((f) => {
    try {
      return JSON.parse(readInput(f).toString('utf8'));
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(
        `${f} is not JSON (a signature: format, signature, signedBy, signingAlgorithmSpec)`,
      );
    }
  });
}

function count(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,2}$/.test(value)) throw new UsageError(`${what} must be a whole number`);
  return Number(value);
}

/** Any refusal but authentication is the caller's input (exit 2). */
const badInput = (status: number) => status >= 400 && status < 500 && status !== 401 && status !== 403;

export function addPartyKeyCommands(parties: Command, env: CliEnv): void {
  parties
    .command('create')
    .description(
      'onboard an M-of-N party through the wallet API: signing keys (Quill’s by fingerprint, external ones as PEM ' +
        'public keys), a threshold, a cold namespace key (default: a new one) and other hosts (LEDGER_HOSTS names)',
    )
    .requiredOption('--hint <hint>', 'party id hint')
    .option('--signing-key <fingerprint>', 'a signing key Quill holds (repeat)', collect)
    .option('--external-key <file[:label]>', 'an external signer’s PEM public key (repeat)', collect)
    .requiredOption('--threshold <m>', 'how many distinct keys must sign a transaction')
    .option('--namespace-key <fingerprint>', 'the key that signs topology only (default: a new Ed25519 key)')
    .option('--host <name[:observation]>', 'another hosting participant (repeat)', collect)
    .option('--confirmation-threshold <n>', 'how many confirming hosts must confirm (default: all)')
    .option('--signature <file>', 'an external key’s proof of possession, JSON (repeat)', collect)
    .option('--synchronizer <id>', 'synchronizer id (default: the first connected one)')
    .option('--prepare', 'print the transactions and the hashes to sign; send nothing')
    .action(async (o: Record<string, string | string[] | boolean | undefined>) => {
      const signingKeys = [
        ...((o.signingKey as string[] | undefined) ?? []).map((fingerprint) => ({ fingerprint })),
        ...((o.externalKey as string[] | undefined) ?? []).map(externalKeyRef),
      ];
      if (signingKeys.length === 0)
        throw new UsageError('give --signing-key or --external-key at least once');
      const hosts = ((o.host as string[] | undefined) ?? []).map((h) => {
        const [host, permission = 'confirmation'] = h.split(':');
        if (permission !== 'confirmation' && permission !== 'observation') {
          throw new UsageError(`--host ${h}: the permission is confirmation or observation`);
        }
        return { host, permission };
      });
      const body = {
        partyHint: o.hint,
        signingKeys,
        threshold: count(o.threshold as string, '--threshold'),
        ...(o.namespaceKey ? { namespaceKey: o.namespaceKey } : {}),
        ...(hosts.length ? { hosts } : {}),
        ...(o.confirmationThreshold
          ? { confirmationThreshold: count(o.confirmationThreshold as string, '--confirmation-threshold') }
          : {}),
        ...(o.synchronizer ? { synchronizerId: o.synchronizer } : {}),
        ...(signatures(o.signature as string[] | undefined)
          ? { signatures: signatures(o.signature as string[]) }
          : {}),
      };
      printJson(
        await callWallet(env, {
          method: 'POST',
          path: o.prepare ? '/wallet/v1/parties/prepare' : '/wallet/v1/parties',
          body,
          badInput,
        }),
      );
    });

  parties
    .command('show')
    .description('a party’s signing keys, threshold and hosts, through the wallet API')
    .argument('<party>', 'party id')
    .action(async (party: string) => {
      printJson(
        await callWallet(env, { method: 'GET', path: `/wallet/v1/parties/${encodeURIComponent(party)}` }),
      );
    });

  parties
    .command('keys')
    .description(
      'change a party’s signing keys through the wallet API and the participant’s admin API: add, remove, threshold',
    )
    .argument('<party>', 'party id')
    .option('--add <fingerprint>', 'add a key Quill holds (repeat)', collect)
    .option('--add-external <file[:label]>', 'add an external signer’s PEM public key (repeat)', collect)
    .option('--remove <fingerprint>', 'remove a key (repeat)', collect)
    .option('--threshold <m>', 'the new threshold')
    .option('--signature <file>', 'an added external key’s proof of possession, JSON (repeat)', collect)
    .option('--prepare', 'print the change and the hash to sign; send nothing')
    .action(async (party: string, o: Record<string, string | string[] | boolean | undefined>) => {
      const add = [
        ...((o.add as string[] | undefined) ?? []).map((fingerprint) => ({ fingerprint })),
        ...((o.addExternal as string[] | undefined) ?? []).map(externalKeyRef),
      ];
      const body = {
        ...(add.length ? { add } : {}),
        ...(o.remove ? { remove: o.remove } : {}),
        ...(o.threshold !== undefined ? { threshold: count(o.threshold as string, '--threshold') } : {}),
        ...(signatures(o.signature as string[] | undefined)
          ? { signatures: signatures(o.signature as string[]) }
          : {}),
        ...(o.prepare ? { prepareOnly: true } : {}),
      };
      printJson(
        await callWallet(env, {
          method: 'POST',
          path: `/wallet/v1/parties/${encodeURIComponent(party)}/keys`,
          body,
          badInput,
        }),
      );
    });
}
