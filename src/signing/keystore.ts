// The key store: one encrypted file per key in KEYS_DIR, named `<fingerprint>.json`.
// Unlocked keys are cached in memory, keyed by the file's identity (inode, size, mtime, ctime): any
// rewrite of the file (our own `disable`, another process, tampering) makes the next use re-read and
// re-authenticate it, so a key disabled by the CLI stops signing in a running server too.
import { statSync } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  ALGORITHMS,
  isKeyAlgorithm,
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  randomSecret,
  UnlockedKey,
} from './algorithms.ts';
import { SigningError } from './errors.ts';
import { ensurePrivateDir, writeFileAtomic } from './files.ts';
import { FINGERPRINT_PATTERN, fingerprintOf } from './fingerprint.ts';
import {
  DEFAULT_SCRYPT,
  type DerivedKey,
  deriveKey,
  type KeyFile,
  type KeyMetadata,
  keyMetadataOf,
  labelProblem,
  newSalt,
  openKeyFile,
  type ScryptParams,
  scryptParamsProblem,
  sealKeyFile,
  serializeKeyFile,
} from './keyfile.ts';
import type { KeyBackend, KeyCheckResult, KeyFileProblem, KeySurvey, KeyView } from './keys.ts';

export interface KeyStoreOptions {
  dir: string;
  passphrase: string;
  /** scrypt cost for keys this store writes (reading uses each file's own parameters). */
  scrypt?: Partial<ScryptParams>;
}

interface Unlocked {
  stamp: string;
  view: KeyView;
  key: UnlockedKey;
}

/** The sealed metadata carries no backend (the file format predates backends): a file key says so here. */
const fileView = (meta: KeyMetadata): KeyView => ({ ...meta, backend: 'file' });

const KEY_FILE_NAME = new RegExp(`^(${FINGERPRINT_PATTERN.source.slice(1, -1)})\\.json$`);

/** Accepts surrounding spaces and upper case; anything else is BAD_INPUT. */
export function normalizeFingerprint(input: string): string {
  const fp = input.trim().toLowerCase();
  if (!FINGERPRINT_PATTERN.test(fp)) {
    throw new SigningError('BAD_INPUT', 'not a key fingerprint (expected 1220 followed by 64 hex digits)');
  }
  return fp;
}

/** What `reseal` did: the keys it rewrote, and those a run before had already sealed with the new passphrase. */
export interface ResealResult {
  resealed: KeyView[];
  already: KeyView[];
}

export class KeyStore implements KeyBackend {
  readonly name = 'file' as const;
  readonly dir: string;
  readonly #passphrase: string;
  readonly #scrypt: ScryptParams;
  readonly #derived = new Map<string, Promise<DerivedKey>>();
  readonly #unlocked = new Map<string, Unlocked>();
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(options: KeyStoreOptions) {
    if (typeof options.passphrase !== 'string' || options.passphrase.length === 0) {
      throw new SigningError('CONFIG', 'the key-store passphrase is empty');
    }
    this.dir = options.dir;
    this.#passphrase = options.passphrase;
    this.#scrypt = { ...DEFAULT_SCRYPT, ...options.scrypt };
    const problem = scryptParamsProblem(this.#scrypt);
    if (problem) throw new SigningError('CONFIG', problem);
  }

  /** Creates a key, writes its file and returns its public view. */
  async generate(algorithm: KeyAlgorithm, label?: string | null): Promise<KeyView> {
    if (!isKeyAlgorithm(algorithm)) {
      throw new SigningError('BAD_INPUT', `unknown algorithm; expected one of ${KEY_ALGORITHMS.join(', ')}`);
    }
    const cleanLabel = label === undefined || label === null ? null : label;
    const problem = cleanLabel === null ? undefined : labelProblem(cleanLabel);
    if (problem) throw new SigningError('BAD_INPUT', problem);
    const secret = Buffer.from(randomSecret(algorithm));
    try {
      const key = UnlockedKey.fromSecret(algorithm, secret);
      if (!key) throw new SigningError('SIGNING_FAILED', `could not create a consistent ${algorithm} key`);
      const meta: KeyMetadata = {
        fingerprint: fingerprintOf(algorithm, key.spki),
        algorithm,
        keySpec: ALGORITHMS[algorithm].keySpec,
        publicKey: Buffer.from(key.spki).toString('base64'),
        label: cleanLabel,
        status: 'active',
        createdAt: new Date().toISOString(),
      };
      const view = fileView(meta);
      const salt = newSalt();
      const derived = await this.#derive(salt, this.#scrypt);
      const record = sealKeyFile(meta, secret, derived, salt, this.#scrypt);
      await ensurePrivateDir(this.dir);
      const path = this.#path(view.fingerprint);
      await writeFileAtomic(path, serializeKeyFile(record));
      this.#unlocked.set(view.fingerprint, { stamp: await this.#stampOf(path), view, key });
      return view;
    } finally {
      secret.fill(0);
    }
  }

  /** Every key, each file authenticated; throws on the first bad file (run `check` to see all). */
  async list(): Promise<KeyView[]> {
    const views: KeyView[] = [];
    for (const fp of await this.#fingerprints()) views.push((await this.#unlock(fp)).view);
    return views.sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt) || a.fingerprint.localeCompare(b.fingerprint),
    );
  }

  async get(fingerprint: string): Promise<KeyView> {
    return (await this.#unlock(normalizeFingerprint(fingerprint))).view;
  }

  /** Marks a key disabled (re-sealed, so the status is authenticated). Idempotent; there is no way back. */
  async disable(fingerprint: string): Promise<KeyView> {
    const fp = normalizeFingerprint(fingerprint);
    return this.#exclusive(fp, async () => {
      const path = this.#path(fp);
      const { bytes } = await this.#read(fp);
      if (!bytes) throw new SigningError('UNREADABLE', `${path}: unreadable`, path);
      const { record, secret } = await openKeyFile(bytes, path, fp, (s, p) => this.#derive(s, p));
      try {
        if (record.status === 'disabled') return fileView(keyMetadataOf(record));
        const salt = Buffer.from(record.kdf.salt, 'base64');
        const params = { N: record.kdf.N, r: record.kdf.r, p: record.kdf.p };
        const derived = await this.#derive(salt, params);
        const sealed = sealKeyFile(
          { ...keyMetadataOf(record), status: 'disabled' },
          secret,
          derived,
          salt,
          params,
        );
        await writeFileAtomic(path, serializeKeyFile(sealed));
        this.#unlocked.delete(fp);
        return fileView(keyMetadataOf(sealed));
      } finally {
        secret.fill(0);
      }
    });
  }

  /**
   * Re-seals every key file from this store's passphrase to `newPassphrase` (`quill keys reseal`): a fresh salt
   * and IV, the file's own scrypt cost and metadata. Every file is opened first: one that opens with neither
   * passphrase, or any other bad file, throws before anything is written (naming it). A file that already opens
   * with the new passphrase (a run before, perhaps interrupted) is left as it is, so running again is harmless.
   * Each file is replaced atomically (temp file in KEYS_DIR, fsync, rename, directory fsync), after the new bytes
   * were opened again in memory; a file that changed since it was opened stops the run. `beforeWrite` runs once,
   * right before the first write (the CLI checks that its audit entries can be written), `afterWrite` after each
   * file is replaced (its audit entry); either throwing stops the run.
   */
  async reseal(
    newPassphrase: string,
    hooks: { beforeWrite?: () => Promise<void>; afterWrite?: (view: KeyView) => Promise<void> } = {},
  ): Promise<ResealResult> {
    if (typeof newPassphrase !== 'string' || newPassphrase.length === 0)
      throw new SigningError('BAD_INPUT', 'the new passphrase is empty');
    if (newPassphrase === this.#passphrase)
      throw new SigningError('BAD_INPUT', 'the new passphrase is the current one');
    const withNew = (salt: Uint8Array, params: ScryptParams) => deriveKey(newPassphrase, salt, params);
    const pending: { fp: string; path: string; bytes: Buffer; record: KeyFile; secret: Buffer }[] = [];
    const already: KeyView[] = [];
    try {
      // 1. Open everything; nothing is written unless every file opens.
      for (const fp of (await this.#fingerprints()).sort()) {
        const path = this.#path(fp);
        const { bytes } = await this.#read(fp);
        if (!bytes) throw new SigningError('UNREADABLE', `${path}: unreadable`, path);
        try {
          const { record, secret } = await openKeyFile(bytes, path, fp, (salt, p) => this.#derive(salt, p));
          pending.push({ fp, path, bytes, record, secret });
        } catch (err) {
          if (!(err instanceof SigningError && err.code === 'WRONG_PASSPHRASE')) throw err;
          const opened = await openKeyFile(bytes, path, fp, withNew).catch((again: unknown) => {
            if (again instanceof SigningError && again.code === 'WRONG_PASSPHRASE')
              throw new SigningError(
                'WRONG_PASSPHRASE',
                `${path}: opens with neither the current passphrase nor the new one; nothing was re-sealed`,
                path,
              );
            throw again;
          });
          opened.secret.fill(0);
          already.push(fileView(keyMetadataOf(opened.record)));
        }
      }
      // 2. Re-seal each file, one atomic replacement at a time.
      if (pending.length > 0) await hooks.beforeWrite?.();
      const resealed: KeyView[] = [];
      for (const { fp, path, bytes, record, secret } of pending) {
        await this.#exclusive(fp, async () => {
          const params = { N: record.kdf.N, r: record.kdf.r, p: record.kdf.p };
          const salt = newSalt();
          const derived = await withNew(salt, params);
          const text = serializeKeyFile(sealKeyFile(keyMetadataOf(record), secret, derived, salt, params));
          // The new bytes open with the new passphrase before they replace anything.
          const check = await openKeyFile(Buffer.from(text, 'utf8'), path, fp, async () => derived);
          check.secret.fill(0);
          const now = await this.#read(fp);
          if (!now.bytes?.equals(bytes))
            throw new SigningError(
              'TAMPERED',
              `${path}: changed while re-sealing (another process wrote it); run the command again`,
              path,
            );
          await writeFileAtomic(path, text);
          this.#unlocked.delete(fp);
        });
        const view = fileView(keyMetadataOf(record));
        resealed.push(view);
        await hooks.afterWrite?.(view);
      }
      return { resealed, already };
    } finally {
      for (const p of pending) p.secret.fill(0);
    }
  }

  /** Unlocks every key file and reports each one's outcome (never throws for a bad file). */
  async check(): Promise<KeyCheckResult[]> {
    try {
      return (await this.#examine()).map((e) => e.result);
    } catch (err) {
      if (err instanceof SigningError && err.code === 'UNREADABLE')
        return [{ location: this.dir, ok: false, problem: 'unreadable', message: err.message }];
      throw err;
    }
  }

  /**
   * The healthy keys (as `list`) and the files that failed (as `check`), so one damaged file does not take
   * key administration down with it. Throws UNREADABLE only when KEYS_DIR itself cannot be read.
   */
  async survey(): Promise<KeySurvey> {
    const keys: KeyView[] = [];
    const problems: KeyFileProblem[] = [];
    for (const { result, view } of await this.#examine()) {
      if (view) keys.push(view);
      else problems.push({ file: basename(result.location), problem: result.problem ?? 'unreadable' });
    }
    keys.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.fingerprint.localeCompare(b.fingerprint));
    return { keys, problems };
  }

  async #examine(): Promise<{ result: KeyCheckResult; view?: KeyView }[]> {
    const out: { result: KeyCheckResult; view?: KeyView }[] = [];
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.endsWith('.json')).sort();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      if (code === 'ENOENT') return [];
      throw new SigningError('UNREADABLE', `${this.dir}: unreadable (${code})`);
    }
    for (const name of names) {
      const file = join(this.dir, name);
      const fp = KEY_FILE_NAME.exec(name)?.[1];
      if (!fp) {
        out.push({
          result: { location: file, ok: false, problem: 'tampered', message: `${file}: not a key file name` },
        });
        continue;
      }
      try {
        const { view } = await this.#unlock(fp);
        out.push({ result: { location: file, fingerprint: fp, ok: true }, view });
      } catch (err) {
        // Whatever a damaged file makes the reader throw, it is that file's problem, not the store's.
        const code = err instanceof SigningError ? err.code : 'TAMPERED';
        const problem =
          code === 'WRONG_PASSPHRASE' ? 'wrong-passphrase' : code === 'TAMPERED' ? 'tampered' : 'unreadable';
        const message = err instanceof SigningError ? err.message : `${file}: tampered (unexpected content)`;
        out.push({ result: { location: file, fingerprint: fp, ok: false, problem, message } });
      }
    }
    return out;
  }

  /** The unlocked key for signing; throws DISABLED for a disabled key, NOT_FOUND, or a file error. */
  async signingKey(fingerprint: string): Promise<{ view: KeyView; key: UnlockedKey }> {
    const fp = normalizeFingerprint(fingerprint);
    const { view, key } = await this.#unlock(fp);
    if (view.status !== 'active') throw new SigningError('DISABLED', `key ${fp} is disabled`);
    return { view, key };
  }

  async signBytes(
    fingerprint: string,
    message: Uint8Array,
  ): Promise<{ view: KeyView; signature: Uint8Array }> {
    const { view, key } = await this.signingKey(fingerprint);
    return { view, signature: key.sign(message) };
  }

  toJSON(): string {
    return `[KeyStore ${this.dir}]`;
  }

  #path(fp: string): string {
    return join(this.dir, `${fp}.json`);
  }

  async #fingerprints(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new SigningError(
        'UNREADABLE',
        `${this.dir}: unreadable (${(err as NodeJS.ErrnoException).code})`,
      );
    }
    return names.flatMap((n) => KEY_FILE_NAME.exec(n)?.[1] ?? []);
  }

  /** Synchronous: a local stat is a few microseconds, the promise version costs more than it saves. */
  #stampOrUndefined(path: string): string | undefined {
    try {
      const s = statSync(path, { bigint: true });
      return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    } catch {
      return undefined; // #read reports the problem
    }
  }

  async #stampOf(path: string): Promise<string> {
    const handle = await open(path, 'r');
    try {
      const s = await handle.stat({ bigint: true });
      return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    } finally {
      await handle.close();
    }
  }

  /** Reads a key file with the stamp of exactly the bytes read (fstat on the same descriptor). */
  async #read(fp: string, cachedStamp?: string): Promise<{ stamp: string; bytes?: Buffer }> {
    const path = this.#path(fp);
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(path, 'r');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new SigningError('NOT_FOUND', `no key ${fp} in ${this.dir}`);
      throw new SigningError('UNREADABLE', `${path}: unreadable (${code ?? 'error'})`, path);
    }
    try {
      const s = await handle.stat({ bigint: true });
      const stamp = `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
      if (stamp === cachedStamp) return { stamp };
      if (s.size > 64 * 1024) throw new SigningError('TAMPERED', `${path}: tampered (file too large)`, path);
      return { stamp, bytes: await handle.readFile() };
    } catch (err) {
      if (err instanceof SigningError) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new SigningError('UNREADABLE', `${path}: unreadable (${code})`, path);
    } finally {
      await handle.close();
    }
  }

  async #unlock(fp: string): Promise<Unlocked> {
    const cached = this.#unlocked.get(fp);
    // Hot path (every signature): one stat tells whether the file changed since it was unlocked.
    if (cached && this.#stampOrUndefined(this.#path(fp)) === cached.stamp) return cached;
    const { stamp, bytes } = await this.#read(fp, cached?.stamp);
    if (!bytes) return cached as Unlocked;
    const path = this.#path(fp);
    const { record, secret } = await openKeyFile(bytes, path, fp, (s, p) => this.#derive(s, p));
    try {
      const key = UnlockedKey.fromSecret(record.algorithm, secret, Buffer.from(record.publicKey, 'base64'));
      if (!key)
        throw new SigningError('TAMPERED', `${path}: tampered (secret does not match the public key)`, path);
      const entry = { stamp, view: fileView(keyMetadataOf(record)), key };
      this.#unlocked.set(fp, entry);
      return entry;
    } finally {
      secret.fill(0);
    }
  }

  /** scrypt once per (salt, parameters); failures are not cached. */
  #derive(salt: Uint8Array, params: ScryptParams): Promise<DerivedKey> {
    const id = `${Buffer.from(salt).toString('base64')}:${params.N}:${params.r}:${params.p}`;
    let derived = this.#derived.get(id);
    if (!derived) {
      derived = deriveKey(this.#passphrase, salt, params);
      this.#derived.set(id, derived);
      derived.catch(() => this.#derived.delete(id));
    }
    return derived;
  }

  async #exclusive<T>(fp: string, run: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(fp) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(run);
    this.#locks.set(fp, next);
    try {
      return await next;
    } finally {
      if (this.#locks.get(fp) === next) this.#locks.delete(fp);
    }
  }
}
