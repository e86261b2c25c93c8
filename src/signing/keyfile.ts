// One key file: metadata in the clear, the secret sealed with AES-256-GCM under a scrypt-derived key.
// The GCM additional data is every other field of the file, so nothing in it can change undetected;
// a file must also be byte-for-byte in our canonical form, so even bytes that do not change a parsed
// value (spacing, key order, non-canonical base64) count as tampering.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
  scrypt,
  timingSafeEqual,
} from 'node:crypto';
import { z } from 'zod';
import { ALGORITHMS, KEY_ALGORITHMS, type KeyAlgorithm, type KeySpec } from './algorithms.ts';
import { SigningError } from './errors.ts';
import { FINGERPRINT_PATTERN, fingerprintOf } from './fingerprint.ts';

const KEY_FILE_FORMAT = 'quill-key-v1';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}
/** Production default: 2^17 x 8 = 128 MiB and a few hundred ms per unlock. */
export const DEFAULT_SCRYPT: Readonly<ScryptParams> = { N: 2 ** 17, r: 8, p: 1 };

/** Bounds for both writing and reading (a file asking for more is refused before any work). */
export function scryptParamsProblem(params: ScryptParams): string | undefined {
  const { N, r, p } = params;
  if (!Number.isInteger(N) || N < 2 ** 10 || N > 2 ** 20 || (N & (N - 1)) !== 0) {
    return 'scrypt N must be a power of two between 2^10 and 2^20';
  }
  if (!Number.isInteger(r) || r < 1 || r > 32) return 'scrypt r must be an integer between 1 and 32';
  if (!Number.isInteger(p) || p < 1 || p > 16) return 'scrypt p must be an integer between 1 and 16';
  return undefined;
}

const SALT_LENGTH = 16;
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
const CHECK_LENGTH = 32;

const isCanonicalBase64 = (s: string) =>
  /^[A-Za-z0-9+/]*={0,2}$/.test(s) && Buffer.from(s, 'base64').toString('base64') === s;
const base64 = z.string().refine(isCanonicalBase64);
const CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Labels are for humans: 1-100 printable characters. */
export function labelProblem(label: string): string | undefined {
  if (label.length < 1 || label.length > 100) return 'a label must be 1-100 characters';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u001f\u007f-\u009f]/.test(label)) return 'a label must not contain control characters';
  return undefined;
}

const KeyFileSchema = z.strictObject({
  format: z.literal(KEY_FILE_FORMAT),
  fingerprint: z.string().regex(FINGERPRINT_PATTERN),
  algorithm: z.enum(KEY_ALGORITHMS),
  keySpec: z.enum(KEY_ALGORITHMS.map((a) => ALGORITHMS[a].keySpec) as [KeySpec, ...KeySpec[]]),
  publicKey: base64,
  label: z
    .string()
    .refine((s) => labelProblem(s) === undefined)
    .nullable(),
  status: z.enum(['active', 'disabled']),
  createdAt: z.string().regex(CREATED_AT),
  kdf: z.strictObject({
    name: z.literal('scrypt'),
    N: z.number().int(),
    r: z.number().int(),
    p: z.number().int(),
    salt: base64,
    check: base64,
  }),
  cipher: z.strictObject({
    name: z.literal('aes-256-gcm'),
    iv: base64,
    ciphertext: base64,
    tag: base64,
  }),
});
export type KeyFile = z.infer<typeof KeyFileSchema>;
export type KeyMetadata = Pick<
  KeyFile,
  'fingerprint' | 'algorithm' | 'keySpec' | 'publicKey' | 'label' | 'status' | 'createdAt'
>;

/** The public part of a key file, in file order (what may be shown). */
export function keyMetadataOf(f: KeyMetadata): KeyMetadata {
  return {
    fingerprint: f.fingerprint,
    algorithm: f.algorithm,
    keySpec: f.keySpec,
    publicKey: f.publicKey,
    label: f.label,
    status: f.status,
    createdAt: f.createdAt,
  };
}

/** The exact bytes of a key file: fixed field order, two-space indent, trailing newline. */
export function serializeKeyFile(f: KeyFile): string {
  const ordered: KeyFile = {
    format: f.format,
    ...keyMetadataOf(f),
    kdf: { name: f.kdf.name, N: f.kdf.N, r: f.kdf.r, p: f.kdf.p, salt: f.kdf.salt, check: f.kdf.check },
    cipher: { name: f.cipher.name, iv: f.cipher.iv, ciphertext: f.cipher.ciphertext, tag: f.cipher.tag },
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** GCM additional data: every field except the ciphertext and tag, in a fixed order. */
function additionalData(
  f: Omit<KeyFile, 'cipher'> & { cipher: Pick<KeyFile['cipher'], 'name' | 'iv'> },
): Buffer {
  const fields = [
    f.format,
    f.fingerprint,
    f.algorithm,
    f.keySpec,
    f.publicKey,
    f.label,
    f.status,
    f.createdAt,
    f.kdf.name,
    f.kdf.N,
    f.kdf.r,
    f.kdf.p,
    f.kdf.salt,
    f.kdf.check,
    f.cipher.name,
    f.cipher.iv,
  ];
  return Buffer.from(JSON.stringify(fields), 'utf8');
}

export interface DerivedKey {
  aesKey: Buffer;
  /** sha256 of the second half of the scrypt output: tells a wrong passphrase apart from a tampered file. */
  check: Buffer;
}

/** Async scrypt (libuv thread pool), 64 bytes: 32 for AES, 32 for the passphrase check. */
export async function deriveKey(
  passphrase: string,
  salt: Uint8Array,
  params: ScryptParams,
): Promise<DerivedKey> {
  const out = await new Promise<Buffer>((resolve, reject) => {
    scrypt(
      Buffer.from(passphrase.normalize('NFC'), 'utf8'),
      salt,
      64,
      { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 32 * 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
  const derived = {
    aesKey: Buffer.from(out.subarray(0, 32)),
    check: createHash('sha256').update(out.subarray(32)).digest(),
  };
  out.fill(0);
  return derived;
}

export type Deriver = (salt: Uint8Array, params: ScryptParams) => Promise<DerivedKey>;

export function newSalt(): Buffer {
  return randomBytes(SALT_LENGTH);
}

/** Seals a secret with fresh IV; `salt`/`params` must be the ones `derived` came from. */
export function sealKeyFile(
  meta: KeyMetadata,
  secret: Uint8Array,
  derived: DerivedKey,
  salt: Uint8Array,
  params: ScryptParams,
): KeyFile {
  const iv = randomBytes(IV_LENGTH);
  const head = {
    format: KEY_FILE_FORMAT,
    ...meta,
    kdf: {
      name: 'scrypt' as const,
      N: params.N,
      r: params.r,
      p: params.p,
      salt: Buffer.from(salt).toString('base64'),
      check: derived.check.toString('base64'),
    },
    cipher: { name: 'aes-256-gcm' as const, iv: iv.toString('base64') },
  } as const;
  const cipher = createCipheriv('aes-256-gcm', derived.aesKey, iv, { authTagLength: TAG_LENGTH });
  cipher.setAAD(additionalData(head));
  const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
  return {
    ...head,
    cipher: {
      ...head.cipher,
      ciphertext: ciphertext.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
    },
  };
}

const tampered = (file: string, why: string) =>
  new SigningError('TAMPERED', `${file}: tampered (${why})`, file);
const b64 = (s: string) => Buffer.from(s, 'base64');

/** Parses and authenticates a key file; the caller owns (and should zero) the returned secret. */
export async function openKeyFile(
  bytes: Uint8Array,
  file: string,
  expectedFingerprint: string | undefined,
  derive: Deriver,
): Promise<{ record: KeyFile; secret: Buffer }> {
  const text = Buffer.from(bytes).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw tampered(file, 'not valid JSON');
  }
  const parsed = KeyFileSchema.safeParse(json);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join('.') || 'top level';
    throw tampered(file, `unexpected content at ${where}`);
  }
  const record = parsed.data;
  if (serializeKeyFile(record) !== text) throw tampered(file, 'not in canonical form');
  const alg: KeyAlgorithm = record.algorithm;
  const spec = ALGORITHMS[alg];
  if (record.keySpec !== spec.keySpec) throw tampered(file, 'key spec does not match the algorithm');
  if (expectedFingerprint !== undefined && record.fingerprint !== expectedFingerprint) {
    throw tampered(file, 'fingerprint does not match the file name');
  }
  let fingerprint: string;
  try {
    fingerprint = fingerprintOf(alg, b64(record.publicKey));
  } catch {
    throw tampered(file, 'public key is not a valid SubjectPublicKeyInfo');
  }
  if (fingerprint !== record.fingerprint) throw tampered(file, 'fingerprint does not match the public key');
  const params = { N: record.kdf.N, r: record.kdf.r, p: record.kdf.p };
  const problem = scryptParamsProblem(params);
  if (problem) throw tampered(file, problem);
  const salt = b64(record.kdf.salt);
  const check = b64(record.kdf.check);
  const iv = b64(record.cipher.iv);
  const tag = b64(record.cipher.tag);
  const ciphertext = b64(record.cipher.ciphertext);
  if (salt.length !== SALT_LENGTH || check.length !== CHECK_LENGTH || iv.length !== IV_LENGTH) {
    throw tampered(file, 'kdf or cipher parameters have the wrong length');
  }
  if (tag.length !== TAG_LENGTH || ciphertext.length !== spec.secretLength) {
    throw tampered(file, 'ciphertext or tag has the wrong length');
  }
  const derived = await derive(salt, params);
  if (!timingSafeEqual(derived.check, check)) {
    throw new SigningError(
      'WRONG_PASSPHRASE',
      `${file}: wrong passphrase (or the file's kdf fields were altered)`,
      file,
    );
  }
  const decipher = createDecipheriv('aes-256-gcm', derived.aesKey, iv, { authTagLength: TAG_LENGTH });
  decipher.setAAD(additionalData(record));
  decipher.setAuthTag(tag);
  try {
    const secret = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    return { record, secret };
  } catch {
    throw tampered(file, 'authentication failed');
  }
}
