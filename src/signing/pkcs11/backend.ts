// Keys in a PKCS#11 token (an HSM, or SoftHSM2 in tests). The private key is generated in the token as a token
// object that is sensitive and never extractable, with CKA_ID = the fingerprint's bytes and CKA_LABEL
// `quill:<fingerprint>`; it never leaves the token. KEYS_DIR/pkcs11/<fingerprint>.json keeps only public
// metadata (algorithm, public key, label, status, creation time). Signing follows the participant's verification
// exactly: Ed25519 over the message (CKM_EDDSA), ECDSA over SHA-256 (P-256, secp256k1) or SHA-384 (P-384) of
// the message, computed here and signed with CKM_ECDSA, the raw r||s turned into DER (low-S is applied, and the
// signature verified, by `verifyingSigner`).
import { createHash, randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import {
  ALGORITHMS,
  canonicalSignature,
  derFromRawEcdsa,
  isKeyAlgorithm,
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  rawPublicKeyFromSpki,
  verifySignature,
} from '../algorithms.ts';
import { curveOidDer, pointFromEcPoint, spkiFromRaw } from '../der.ts';
import { SigningError } from '../errors.ts';
import { ensurePrivateDir, writeFileAtomic } from '../files.ts';
import { fingerprintOf } from '../fingerprint.ts';
import { labelProblem } from '../keyfile.ts';
import type { KeyBackend, KeyCheckResult, KeyFileProblem, KeySurvey, KeyView } from '../keys.ts';
import { normalizeFingerprint } from '../keystore.ts';
import { type Attribute, CK, Pkcs11Token, type TokenOptions } from './token.ts';

export interface Pkcs11Options extends TokenOptions {
  /** KEYS_DIR: the public metadata goes to `<dir>/pkcs11/`. */
  dir: string;
}

const FORMAT = 'quill-pkcs11-key/1';
const Metadata = z.strictObject({
  format: z.literal(FORMAT),
  fingerprint: z.string(),
  algorithm: z.enum(KEY_ALGORITHMS),
  keySpec: z.string(),
  publicKey: z.string(),
  label: z.string().nullable(),
  status: z.enum(['active', 'disabled']),
  createdAt: z.string(),
  /** The key's CKA_ID in hex, when it is not the fingerprint's bytes (a key adopted from the token's own tools). */
  tokenId: z
    .string()
    .regex(/^[0-9a-f]{2,256}$/)
    .optional(),
});
type Metadata = z.infer<typeof Metadata>;

/** What `adopt` accepts: the key by its CKA_LABEL or by its CKA_ID (hex). */
const REF = /^(label):(.{1,256})$|^(id):([0-9a-fA-F]{2,256})$/s;

/** How a token may name a curve in CKA_EC_PARAMS: the DER OID, and for Ed25519 its other spellings too. */
function algorithmOfParams(params: Buffer): KeyAlgorithm | undefined {
  for (const a of KEY_ALGORITHMS) if (Buffer.from(curveOidDer(a)).equals(params)) return a;
  const ed25519 = [
    '130c656477617264733235353139', // PrintableString "edwards25519" (PKCS#11 3.0)
    '06092b06010401da470f01', // 1.3.6.1.4.1.11591.15.1, as older tools write it
  ];
  return ed25519.includes(params.toString('hex')) ? 'ed25519' : undefined;
}

const flag = (a: { value?: unknown } | undefined) =>
  Buffer.isBuffer(a?.value) && (a.value as Buffer)[0] === 1;

const MECHANISMS = {
  ed25519: { generate: CK.CKM_EC_EDWARDS_KEY_PAIR_GEN, sign: CK.CKM_EDDSA, names: 'EdDSA (CKM_EDDSA)' },
  ecdsa: { generate: CK.CKM_EC_KEY_PAIR_GEN, sign: CK.CKM_ECDSA, names: 'ECDSA (CKM_ECDSA)' },
} as const;
const mechanismsOf = (a: KeyAlgorithm) => (a === 'ed25519' ? MECHANISMS.ed25519 : MECHANISMS.ecdsa);

/** Opens the backend: the module must load now (a configuration error otherwise); the token is reached on use. */
export function openPkcs11Backend(opts: Pkcs11Options): Pkcs11Backend {
  return new Pkcs11Backend(opts);
}

export class Pkcs11Backend implements KeyBackend {
  readonly name = 'pkcs11' as const;
  readonly #dir: string;
  readonly #token: Pkcs11Token;
  readonly #views = new Map<string, { stamp: string; view: KeyView }>();
  /** Private-key handles by fingerprint, valid for one connection generation. */
  readonly #handles = new Map<string, { generation: number; handle: Buffer }>();
  /** The CKA_ID of keys whose id is not their fingerprint (adopted keys), from their metadata. */
  readonly #tokenIds = new Map<string, string>();

  constructor(opts: Pkcs11Options) {
    this.#dir = join(opts.dir, 'pkcs11');
    this.#token = new Pkcs11Token(opts);
  }

  async generate(algorithm: KeyAlgorithm, label?: string | null): Promise<KeyView> {
    if (!isKeyAlgorithm(algorithm)) {
      throw new SigningError('BAD_INPUT', `unknown algorithm; expected one of ${KEY_ALGORITHMS.join(', ')}`);
    }
    const problem = label === undefined || label === null ? undefined : labelProblem(label);
    if (problem) throw new SigningError('BAD_INPUT', problem);
    await this.#requireMechanisms(algorithm);
    const spec = ALGORITHMS[algorithm];
    const view = await this.#token.withSession((m, session) => {
      const { publicKey, privateKey } = m.C_GenerateKeyPair(
        session,
        { mechanism: mechanismsOf(algorithm).generate },
        [
          { type: CK.CKA_TOKEN, value: true },
          { type: CK.CKA_VERIFY, value: true },
          { type: CK.CKA_ENCRYPT, value: false },
          { type: CK.CKA_WRAP, value: false },
          { type: CK.CKA_EC_PARAMS, value: Buffer.from(curveOidDer(algorithm)) },
        ],
        [
          { type: CK.CKA_TOKEN, value: true },
          { type: CK.CKA_PRIVATE, value: true },
          { type: CK.CKA_SENSITIVE, value: true },
          { type: CK.CKA_EXTRACTABLE, value: false },
          { type: CK.CKA_SIGN, value: true },
          // A signing key and nothing else.
          { type: CK.CKA_DECRYPT, value: false },
          { type: CK.CKA_UNWRAP, value: false },
          { type: CK.CKA_DERIVE, value: false },
        ],
      );
      const [point] = m.C_GetAttributeValue(session, publicKey, [{ type: CK.CKA_EC_POINT }]);
      const raw = pointFromEcPoint(point?.value as Buffer, spec.rawPublicKeyLength);
      if (!raw)
        throw new SigningError(
          'SIGNING_FAILED',
          `the ${this.#token.description} returned an unreadable public key`,
        );
      const spki = spkiFromRaw(algorithm, raw);
      const fingerprint = fingerprintOf(algorithm, spki);
      const id: Attribute[] = [
        { type: CK.CKA_ID, value: Buffer.from(fingerprint, 'hex') },
        { type: CK.CKA_LABEL, value: `quill:${fingerprint}` },
      ];
      m.C_SetAttributeValue(session, privateKey, id);
      m.C_SetAttributeValue(session, publicKey, id);
      const v: KeyView = {
        fingerprint,
        algorithm,
        keySpec: spec.keySpec,
        publicKey: Buffer.from(spki).toString('base64'),
        label: label ?? null,
        status: 'active',
        createdAt: new Date().toISOString(),
        backend: 'pkcs11',
      };
      return v;
    });
    await this.#write(view);
    return view;
  }

  /**
   * Takes over a key pair made in the token by other tools (`label:<CKA_LABEL>` or `id:<hex CKA_ID>`): it must be a
   * signing key that never leaves the token (sensitive, not extractable), on a curve Quill signs with, whose public
   * half the token also holds. Its attributes are left as they are; its metadata notes its CKA_ID. A key already
   * held is answered as it is.
   */
  async adopt(ref: string, label?: string | null): Promise<KeyView> {
    const m = REF.exec(ref);
    if (!m)
      throw new SigningError('BAD_INPUT', 'a PKCS#11 key is named label:<CKA_LABEL> or id:<hex CKA_ID>');
    const problem = label === undefined || label === null ? undefined : labelProblem(label);
    if (problem) throw new SigningError('BAD_INPUT', problem);
    const match: Attribute[] =
      m[1] === 'label'
        ? [{ type: CK.CKA_LABEL, value: m[2] as string }]
        : [{ type: CK.CKA_ID, value: Buffer.from(m[4] as string, 'hex') }];
    const found = await this.#token.withSession((t, session) => {
      const keys = this.#findAll(t, session, match, CK.CKO_PRIVATE_KEY, 2);
      if (keys.length === 0)
        throw new SigningError('NOT_FOUND', `the ${this.#token.description} holds no private key ${ref}`);
      if (keys.length > 1)
        throw new SigningError('BAD_INPUT', `more than one private key in the token matches ${ref}`);
      const [id, params, sensitive, extractable, sign] = t.C_GetAttributeValue(session, keys[0] as Buffer, [
        { type: CK.CKA_ID },
        { type: CK.CKA_EC_PARAMS },
        { type: CK.CKA_SENSITIVE },
        { type: CK.CKA_EXTRACTABLE },
        { type: CK.CKA_SIGN },
      ]);
      if (!flag(sensitive) || flag(extractable))
        throw new SigningError(
          'BAD_INPUT',
          `${ref} can leave the token (not sensitive, or extractable): Quill will not hold it`,
        );
      if (!flag(sign))
        throw new SigningError('BAD_INPUT', `${ref} is not allowed to sign (CKA_SIGN is false)`);
      const algorithm = Buffer.isBuffer(params?.value) ? algorithmOfParams(params.value) : undefined;
      if (!algorithm)
        throw new SigningError(
          'UNSUPPORTED',
          `${ref} is on a curve Quill does not sign with (${KEY_ALGORITHMS.join(', ')})`,
        );
      const tokenId = Buffer.isBuffer(id?.value) ? id.value.toString('hex') : '';
      if (!tokenId)
        throw new SigningError('BAD_INPUT', `${ref} has no CKA_ID, by which Quill would find it again`);
      const pub = this.#find(t, session, CK.CKO_PUBLIC_KEY, tokenId);
      if (!pub)
        throw new SigningError(
          'BAD_INPUT',
          `the ${this.#token.description} keeps no public key beside ${ref}`,
        );
      const [point] = t.C_GetAttributeValue(session, pub, [{ type: CK.CKA_EC_POINT }]);
      const raw = pointFromEcPoint(point?.value as Buffer, ALGORITHMS[algorithm].rawPublicKeyLength);
      if (!raw)
        throw new SigningError(
          'SIGNING_FAILED',
          `the ${this.#token.description} returned an unreadable public key`,
        );
      const spki = spkiFromRaw(algorithm, raw);
      return { algorithm, spki, tokenId, fingerprint: fingerprintOf(algorithm, spki) };
    });
    const existing = await this.#read(found.fingerprint).catch((err) => {
      if (err instanceof SigningError && err.code === 'NOT_FOUND') return undefined;
      throw err;
    });
    if (existing) return existing;
    const view: KeyView = {
      fingerprint: found.fingerprint,
      algorithm: found.algorithm,
      keySpec: ALGORITHMS[found.algorithm].keySpec,
      publicKey: Buffer.from(found.spki).toString('base64'),
      label: label ?? null,
      status: 'active',
      createdAt: new Date().toISOString(),
      backend: 'pkcs11',
    };
    if (found.tokenId !== found.fingerprint) this.#tokenIds.set(found.fingerprint, found.tokenId);
    // It must sign as Quill expects before it is recorded: a probe signature, verified with its public key.
    const probe = randomBytes(32);
    const { signature } = await this.#signAs(view, probe);
    const canonical = canonicalSignature(found.algorithm, signature);
    const rawKey = rawPublicKeyFromSpki(found.algorithm, found.spki);
    if (!canonical || !rawKey || !verifySignature(found.algorithm, rawKey, probe, canonical)) {
      this.#tokenIds.delete(found.fingerprint);
      throw new SigningError(
        'SIGNING_FAILED',
        `${ref}: the token's signature does not verify with its public key`,
      );
    }
    await this.#write(view, found.tokenId !== found.fingerprint ? found.tokenId : undefined);
    return view;
  }

  async get(fingerprint: string): Promise<KeyView> {
    return this.#read(normalizeFingerprint(fingerprint));
  }

  async list(): Promise<KeyView[]> {
    const views: KeyView[] = [];
    for (const fp of await this.#fingerprints()) views.push(await this.#read(fp));
    return views;
  }

  async survey(): Promise<KeySurvey> {
    const keys: KeyView[] = [];
    const problems: KeyFileProblem[] = [];
    for (const fp of await this.#fingerprints()) {
      try {
        keys.push(await this.#read(fp));
      } catch {
        problems.push({ file: `pkcs11/${fp}.json`, problem: 'tampered' });
      }
    }
    return { keys, problems };
  }

  /** Marks the key disabled in its metadata and clears CKA_SIGN in the token where it allows; never destroys it. */
  async disable(fingerprint: string): Promise<KeyView> {
    const fp = normalizeFingerprint(fingerprint);
    const view = await this.#read(fp);
    if (view.status === 'disabled') return view;
    const disabled: KeyView = { ...view, status: 'disabled' };
    await this.#write(disabled);
    await this.#token
      .withSession(async (m, session, generation) => {
        m.C_SetAttributeValue(session, await this.#handle(m, session, generation, fp), [
          { type: CK.CKA_SIGN, value: false },
        ]);
      })
      .catch(() => {}); // the metadata already refuses; a token that keeps CKA_SIGN read-only is fine
    this.#handles.delete(fp);
    return disabled;
  }

  /** Each key: its metadata readable, and the token holding a private key with that public key. */
  async check(): Promise<KeyCheckResult[]> {
    const results: KeyCheckResult[] = [];
    for (const fp of await this.#fingerprints()) {
      const file = join(this.#dir, `${fp}.json`);
      let view: KeyView;
      try {
        view = await this.#read(fp);
      } catch (err) {
        results.push({
          location: file,
          fingerprint: fp,
          ok: false,
          problem: 'tampered',
          message: (err as Error).message,
        });
        continue;
      }
      try {
        const matches = await this.#token.withSession(async (m, session, generation) => {
          await this.#handle(m, session, generation, fp);
          const pub = this.#find(m, session, CK.CKO_PUBLIC_KEY, this.#tokenIds.get(fp) ?? fp);
          if (!pub) return true; // some tokens keep only the private half; signing proves the rest
          const [point] = m.C_GetAttributeValue(session, pub, [{ type: CK.CKA_EC_POINT }]);
          const raw = pointFromEcPoint(point?.value as Buffer, ALGORITHMS[view.algorithm].rawPublicKeyLength);
          const expected = rawPublicKeyFromSpki(view.algorithm, Buffer.from(view.publicKey, 'base64'));
          return !!raw && !!expected && Buffer.from(raw).equals(Buffer.from(expected));
        });
        // Usable: an active key signs a random hash and the signature verifies.
        if (matches && view.status === 'active') {
          const probe = randomBytes(32);
          const { signature } = await this.signBytes(fp, probe);
          const canonical = canonicalSignature(view.algorithm, signature);
          const raw = rawPublicKeyFromSpki(view.algorithm, Buffer.from(view.publicKey, 'base64'));
          if (!canonical || !raw || !verifySignature(view.algorithm, raw, probe, canonical)) {
            throw new SigningError(
              'SIGNING_FAILED',
              `${file}: the token's signature with this key does not verify`,
            );
          }
        }
        results.push(
          matches
            ? { location: file, fingerprint: fp, ok: true }
            : {
                location: file,
                fingerprint: fp,
                ok: false,
                problem: 'tampered',
                message: `${file}: the token's key under this id has another public key`,
              },
        );
      } catch (err) {
        const missing = err instanceof SigningError && err.code === 'NOT_FOUND';
        const broken = err instanceof SigningError && err.code === 'SIGNING_FAILED';
        results.push({
          location: file,
          fingerprint: fp,
          ok: false,
          problem: missing ? 'missing' : broken ? 'tampered' : 'unavailable',
          message: missing
            ? `${file}: the ${this.#token.description} does not hold this key`
            : (err as Error).message,
        });
      }
    }
    return results;
  }

  async signBytes(
    fingerprint: string,
    message: Uint8Array,
  ): Promise<{ view: KeyView; signature: Uint8Array }> {
    const fp = normalizeFingerprint(fingerprint);
    const view = await this.#read(fp);
    if (view.status !== 'active') throw new SigningError('DISABLED', `key ${fp} is disabled`);
    return this.#signAs(view, message);
  }

  /** Signs with the token's key of `view` (its status already checked). */
  async #signAs(view: KeyView, message: Uint8Array): Promise<{ view: KeyView; signature: Uint8Array }> {
    const fp = view.fingerprint;
    const { algorithm } = view;
    await this.#requireMechanisms(algorithm);
    const digest = ALGORITHMS[algorithm].digest;
    const data = Buffer.from(digest === null ? message : createHash(digest).update(message).digest());
    const raw = await this.#token
      .withSession(async (m, session, generation) => {
        const key = await this.#handle(m, session, generation, fp);
        m.C_SignInit(session, { mechanism: mechanismsOf(algorithm).sign }, key);
        return m.C_SignAsync(session, data, Buffer.alloc(256));
      })
      .catch((err) => {
        if (err instanceof SigningError && err.code === 'NOT_FOUND') {
          throw new SigningError('UNAVAILABLE', `the ${this.#token.description} does not hold key ${fp}`);
        }
        throw err;
      });
    const signature = algorithm === 'ed25519' ? Uint8Array.from(raw) : derFromRawEcdsa(algorithm, raw);
    if (!signature)
      throw new SigningError(
        'SIGNING_FAILED',
        `the ${this.#token.description} returned a malformed signature`,
      );
    return { view, signature };
  }

  async close(): Promise<void> {
    await this.#token.close();
  }

  toJSON(): string {
    return `[Pkcs11Backend ${this.#token.description}]`;
  }

  async #requireMechanisms(algorithm: KeyAlgorithm): Promise<void> {
    const needed = mechanismsOf(algorithm);
    if (
      !(await this.#token.hasMechanism(needed.generate)) ||
      !(await this.#token.hasMechanism(needed.sign))
    ) {
      throw new SigningError(
        'UNSUPPORTED',
        `the ${this.#token.description} does not offer ${needed.names}, which ${algorithm} keys need`,
      );
    }
  }

  /** The private key's handle, found by CKA_ID once per connection. NOT_FOUND when the token lacks it. */
  async #handle(
    m: Parameters<Parameters<Pkcs11Token['withSession']>[0]>[0],
    session: Buffer,
    generation: number,
    fp: string,
  ): Promise<Buffer> {
    const cached = this.#handles.get(fp);
    if (cached && cached.generation === generation) return cached.handle;
    const handle = this.#find(m, session, CK.CKO_PRIVATE_KEY, this.#tokenIds.get(fp) ?? fp);
    if (!handle) throw new SigningError('NOT_FOUND', `the ${this.#token.description} holds no key ${fp}`);
    this.#handles.set(fp, { generation, handle });
    return handle;
  }

  /** The object of class `cls` whose CKA_ID is `id` (hex: a fingerprint, or an adopted key's own id). */
  #find(
    m: Parameters<Parameters<Pkcs11Token['withSession']>[0]>[0],
    session: Buffer,
    cls: number,
    id: string,
  ): Buffer | undefined {
    return this.#findAll(m, session, [{ type: CK.CKA_ID, value: Buffer.from(id, 'hex') }], cls, 1)[0];
  }

  #findAll(
    m: Parameters<Parameters<Pkcs11Token['withSession']>[0]>[0],
    session: Buffer,
    match: Attribute[],
    cls: number,
    max: number,
  ): Buffer[] {
    m.C_FindObjectsInit(session, [{ type: CK.CKA_CLASS, value: cls }, ...match]);
    try {
      return m.C_FindObjects(session, max);
    } finally {
      m.C_FindObjectsFinal(session);
    }
  }

  async #fingerprints(): Promise<string[]> {
    try {
      return (await readdir(this.#dir))
        .flatMap((n) => /^(1220[0-9a-f]{64})\.json$/.exec(n)?.[1] ?? [])
        .sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new SigningError(
        'UNREADABLE',
        `${this.#dir}: unreadable (${(err as NodeJS.ErrnoException).code})`,
      );
    }
  }

  /** The metadata, re-read only when its file changed (one stat per signature). */
  async #read(fp: string): Promise<KeyView> {
    const file = join(this.#dir, `${fp}.json`);
    let stamp: string;
    try {
      const s = statSync(file, { bigint: true });
      stamp = `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        throw new SigningError('NOT_FOUND', `no key ${fp}`);
      throw new SigningError('UNREADABLE', `${file}: unreadable`, file);
    }
    const cached = this.#views.get(fp);
    if (cached?.stamp === stamp) return cached.view;
    let meta: Metadata;
    try {
      meta = Metadata.parse(JSON.parse(await readFile(file, 'utf8')));
    } catch {
      throw new SigningError('TAMPERED', `${file}: not a PKCS#11 key metadata file`, file);
    }
    const spki = Buffer.from(meta.publicKey, 'base64');
    if (
      meta.fingerprint !== fp ||
      meta.keySpec !== ALGORITHMS[meta.algorithm].keySpec ||
      !rawPublicKeyFromSpki(meta.algorithm, spki) ||
      fingerprintOf(meta.algorithm, spki) !== fp
    ) {
      throw new SigningError('TAMPERED', `${file}: the public key does not match the fingerprint`, file);
    }
    const { format: _format, tokenId, ...rest } = meta;
    if (tokenId) this.#tokenIds.set(fp, tokenId);
    const view: KeyView = { ...rest, keySpec: ALGORITHMS[meta.algorithm].keySpec, backend: 'pkcs11' };
    this.#views.set(fp, { stamp, view });
    return view;
  }

  async #write(view: KeyView, tokenId?: string): Promise<void> {
    await ensurePrivateDir(this.#dir);
    const meta: Metadata = {
      format: FORMAT,
      fingerprint: view.fingerprint,
      algorithm: view.algorithm,
      keySpec: view.keySpec,
      publicKey: view.publicKey,
      label: view.label,
      status: view.status,
      createdAt: view.createdAt,
      ...((tokenId ?? this.#tokenIds.get(view.fingerprint))
        ? { tokenId: tokenId ?? this.#tokenIds.get(view.fingerprint) }
        : {}),
    };
    await writeFileAtomic(join(this.#dir, `${view.fingerprint}.json`), `${JSON.stringify(meta, null, 2)}\n`);
  }
}
