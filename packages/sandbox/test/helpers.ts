// Test helpers: a sandbox over real HTTP, node:crypto keys for external parties, and raw request helpers.
import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { ledgerSpec } from '@quill/canton/testing/openapi';
import { expect } from 'vitest';
import { startSandbox } from '../src/index.ts';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
export type Alg = 'ed25519' | 'p256' | 'p384' | 'secp256k1';

export interface Answer {
  status: number;
  contentType: string;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test convenience for reading JSON answers
  json: any;
}

export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, json };
}

/**
 * Calls `method path` and expects the participant's error: `status` and `code` in a JsCantonError body that
 * validates against the 3.5 spec (the response of `specPath` where the spec documents that status), with
 * `context.category` matching `errorCategory`. Returns the body.
 */
export async function expectLedgerError(
  base: string,
  request: { specPath: string; method: string; path: string; body?: unknown; token?: string },
  status: number,
  code: string,
) {
  const { specPath, method, path, body, token } = request;
  const a = await call(base, method, path, body, token);
  expect([a.status, a.json?.code], a.text).toEqual([status, code]);
  expect(a.contentType).toContain('application/json');
  // The spec's `400` documents tapir's text/plain decode failures; JSON errors are its `default` JsCantonError.
  const documented = ledgerSpec().validateResponse(specPath, method.toLowerCase(), status, a.json).valid;
  if (status !== 400) expect(documented, `${status} of ${method} ${specPath} matches the spec`).toBe(true);
  ledgerSpec().expectValidComponent('JsCantonError', a.json);
  expect(a.json.context.category).toBe(String(a.json.errorCategory));
  return a.json;
}

/**
 * Calls `method path` and expects the participant's redacted 401/403 (DecodedCantonError.redactedError, as
 * JsCantonError.fromDecodedCantonError renders it): code "NA", errorCategory -1, the fixed cause, the gRPC code
 * of the status, no resources, no retry, `definiteAnswer` null and context `{}` (or only `ledger_api_error:
 * "invalid token"` when resolving the token's user failed, Endpoints.validateJwtToken). Returns the body.
 */
export async function expectRedacted(
  base: string,
  request: { specPath: string; method: string; path: string; body?: unknown; token?: string },
  status: 401 | 403,
  tokenProblem = false,
) {
  const { specPath, method, path, body, token } = request;
  const a = await call(base, method, path, body, token);
  expect(a.status, a.text).toBe(status);
  expect(a.contentType).toContain('application/json');
  expect(a.json).toMatchObject({
    code: 'NA',
    cause: 'A security-sensitive error has been received',
    errorCategory: -1,
    grpcCodeValue: status === 401 ? 16 : 7,
    resources: [],
    retryInfo: null,
    definiteAnswer: null,
  });
  expect(a.json.context).toEqual(tokenProblem ? { ledger_api_error: 'invalid token' } : {});
  ledgerSpec().expectValidComponent('JsCantonError', a.json);
  const documented = ledgerSpec().validateResponse(specPath, method.toLowerCase(), status, a.json).valid;
  expect(documented, `${status} of ${method} ${specPath} matches the spec`).toBe(true);
  return a.json;
}

export interface Key {
  alg: Alg;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

const CURVES = { p256: 'prime256v1', p384: 'secp384r1', secp256k1: 'secp256k1' } as const;
const SPECS = {
  ed25519: 'SIGNING_KEY_SPEC_EC_CURVE25519',
  p256: 'SIGNING_KEY_SPEC_EC_P256',
  p384: 'SIGNING_KEY_SPEC_EC_P384',
  secp256k1: 'SIGNING_KEY_SPEC_EC_SECP256K1',
} as const;
const ALGS = {
  ed25519: 'SIGNING_ALGORITHM_SPEC_ED25519',
  p256: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
  p384: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384',
  secp256k1: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
} as const;

export function newKey(alg: Alg): Key {
  const pair =
    alg === 'ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: CURVES[alg] });
  return { alg, ...pair };
}

export function publicKeyJson(k: Key, raw = false) {
  const spki = k.publicKey.export({ format: 'der', type: 'spki' });
  return raw && k.alg === 'ed25519'
    ? {
        format: 'CRYPTO_KEY_FORMAT_RAW',
        keyData: spki.subarray(12).toString('base64'),
        keySpec: SPECS.ed25519,
      }
    : {
        format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
        keyData: spki.toString('base64'),
        keySpec: SPECS[k.alg],
      };
}

/** A wire Signature over `message` (Ed25519 CONCAT, ECDSA DER with SHA-256/384 message semantics). */
export function signWith(k: Key, message: Uint8Array, signedBy: string) {
  const signature =
    k.alg === 'ed25519'
      ? sign(null, message, k.privateKey)
      : sign(k.alg === 'p384' ? 'sha384' : 'sha256', message, { key: k.privateKey, dsaEncoding: 'der' });
  return {
    format: k.alg === 'ed25519' ? 'SIGNATURE_FORMAT_CONCAT' : 'SIGNATURE_FORMAT_DER',
    signature: signature.toString('base64'),
    signedBy,
    signingAlgorithmSpec: ALGS[k.alg],
  };
}

export async function sandboxWithAdmin(opts: Parameters<typeof startSandbox>[0] = {}) {
  const sb = await startSandbox({ port: 0, scanPort: 0, auth: { secret: `test-${randomUUID()}` }, ...opts });
  const admin = await sb.mintToken('participant_admin', { admin: true });
  return { sb, admin };
}

export interface Party {
  partyId: string;
  fingerprint: string;
  key: Key;
  userId: string;
  token: string;
}

/** generate-topology → sign multi-hash → allocate → user with CanActAs + CanReadAs. */
export async function onboard(
  sb: Sandbox,
  admin: string,
  alg: Alg = 'ed25519',
  hint = `p${randomUUID().slice(0, 8)}`,
): Promise<Party> {
  const key = newKey(alg);
  const synchronizer = sb.state.defaultSynchronizer;
  const topo = await call(
    sb.url,
    'POST',
    '/v2/parties/external/generate-topology',
    {
      synchronizer,
      partyHint: hint,
      publicKey: publicKeyJson(key, alg === 'ed25519'),
    },
    admin,
  );
  if (topo.status !== 200) throw new Error(`generate-topology: ${topo.text}`);
  const { partyId, publicKeyFingerprint, topologyTransactions, multiHash } = topo.json;
  const sig = signWith(key, Buffer.from(multiHash, 'base64'), publicKeyFingerprint);
  const alloc = await call(
    sb.url,
    'POST',
    '/v2/parties/external/allocate',
    {
      synchronizer,
      onboardingTransactions: topologyTransactions.map((transaction: string) => ({ transaction })),
      multiHashSignatures: [sig],
    },
    admin,
  );
  if (alloc.status !== 200) throw new Error(`allocate: ${alloc.text}`);
  const userId = `u-${hint}`;
  const created = await call(
    sb.url,
    'POST',
    '/v2/users',
    {
      user: { id: userId, primaryParty: partyId, isDeactivated: false, identityProviderId: '' },
      rights: [{ kind: { CanActAs: { value: { party: partyId } } } }],
    },
    admin,
  );
  if (created.status !== 200) throw new Error(`create user: ${created.text}`);
  return { partyId, fingerprint: publicKeyFingerprint, key, userId, token: await sb.mintToken(userId) };
}

export function prepareBody(party: Party, commands: unknown[], extra: Record<string, unknown> = {}) {
  return {
    userId: party.userId,
    commandId: `cmd-${randomUUID()}`,
    commands,
    actAs: [party.partyId],
    readAs: [],
    disclosedContracts: [],
    synchronizerId: '',
    packageIdSelectionPreference: [],
    ...extra,
  };
}

export interface Prepared {
  preparedTransaction: string;
  preparedTransactionHash: string;
  hashingSchemeVersion: string;
}

/** Prepares `commands` for `party` and expects 200. */
export async function prepareOn(
  sb: Sandbox,
  party: Party,
  commands: unknown[],
  extra: Record<string, unknown> = {},
): Promise<Prepared> {
  const prep = await call(
    sb.url,
    'POST',
    '/v2/interactive-submission/prepare',
    prepareBody(party, commands, extra),
    party.token,
  );
  expect(prep.status, prep.text).toBe(200);
  return prep.json as Prepared;
}

export function executeBody(
  party: Party,
  prepared: { preparedTransaction: string; preparedTransactionHash: string; hashingSchemeVersion: string },
  extra: Record<string, unknown> = {},
) {
  return {
    preparedTransaction: prepared.preparedTransaction,
    partySignatures: {
      signatures: [
        {
          party: party.partyId,
          signatures: [
            signWith(party.key, Buffer.from(prepared.preparedTransactionHash, 'base64'), party.fingerprint),
          ],
        },
      ],
    },
    submissionId: randomUUID(),
    userId: party.userId,
    hashingSchemeVersion: prepared.hashingSchemeVersion,
    deduplicationPeriod: { Empty: {} },
    ...extra,
  };
}

export const COIN = (entity: string) => `#quill-coin:Quill.Coin:${entity}`;

export function tapCommand(sb: Sandbox, party: string, amount: string) {
  return {
    ExerciseCommand: {
      templateId: COIN('CoinRules'),
      contractId: sb.state.coinRules,
      choice: 'CoinRules_DevNet_Tap',
      choiceArgument: { receiver: party, amount },
    },
  };
}

/** Prepares, signs and executes (executeAndWaitForTransaction); returns the transaction. */
export async function run(sb: Sandbox, party: Party, commands: unknown[]) {
  const prep = await call(
    sb.url,
    'POST',
    '/v2/interactive-submission/prepare',
    prepareBody(party, commands),
    party.token,
  );
  if (prep.status !== 200) throw new Error(`prepare: ${prep.text}`);
  const exec = await call(
    sb.url,
    'POST',
    '/v2/interactive-submission/executeAndWaitForTransaction',
    executeBody(party, prep.json),
    party.token,
  );
  if (exec.status !== 200) throw new Error(`execute: ${exec.text}`);
  return exec.json.transaction;
}

interface WireEvent {
  CreatedEvent?: { templateId: string; contractId: string; createArgument: { owner?: string } };
}

/** Contract ids of created events of an entity (e.g. `Holding`) in a transaction. */
export function createdOf(tx: { events: WireEvent[] }, entity: string, owner?: string): string[] {
  return tx.events
    .filter(
      (e) =>
        e.CreatedEvent?.templateId.endsWith(`:${entity}`) &&
        (!owner || e.CreatedEvent.createArgument.owner === owner),
    )
    .map((e) => e.CreatedEvent?.contractId ?? '');
}
