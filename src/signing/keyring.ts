// One key catalog over several backends (encrypted files, a PKCS#11 token): generate on the backend asked for,
// find a key wherever it lives, list and check them all, and sign through the backend that holds the key.
import type { KeyAlgorithm } from './algorithms.ts';
import { SigningError } from './errors.ts';
import {
  KEY_BACKENDS,
  type KeyBackend,
  type KeyBackendName,
  type KeyCatalog,
  type KeyCheckResult,
  type KeySurvey,
  type KeyView,
} from './keys.ts';
import { normalizeFingerprint } from './keystore.ts';
import type { RawSigner } from './signer.ts';

export class Keyring implements KeyCatalog, RawSigner {
  readonly #backends: ReadonlyMap<KeyBackendName, KeyBackend>;
  /** Which backend holds a fingerprint, learned on first use (keys never move between backends). */
  readonly #owner = new Map<string, KeyBackend>();
  readonly defaultBackend: KeyBackendName;

  constructor(backends: KeyBackend[], defaultBackend?: KeyBackendName) {
    if (backends.length === 0) throw new SigningError('CONFIG', 'no key backend is configured');
    this.#backends = new Map(backends.map((b) => [b.name, b]));
    const first = backends[0] as KeyBackend;
    this.defaultBackend = defaultBackend ?? (this.#backends.has('file') ? 'file' : first.name);
    if (!this.#backends.has(this.defaultBackend)) {
      throw new SigningError('CONFIG', `the default key backend ${this.defaultBackend} is not configured`);
    }
  }

  /** The configured backends, in order. */
  get backends(): KeyBackendName[] {
    return [...this.#backends.keys()];
  }

  backend(name: KeyBackendName): KeyBackend {
    const b = this.#backends.get(name);
    if (b) return b;
    if (!(KEY_BACKENDS as readonly string[]).includes(name)) {
      throw new SigningError('BAD_INPUT', `unknown key backend; expected one of ${KEY_BACKENDS.join(', ')}`);
    }
    throw new SigningError(
      'UNSUPPORTED',
      name === 'pkcs11'
        ? 'the pkcs11 key backend is not configured (set PKCS11_MODULE, the token and its PIN)'
        : `the ${name} key backend is not configured`,
    );
  }

  generate(algorithm: KeyAlgorithm, label?: string | null, backend = this.defaultBackend): Promise<KeyView> {
    return this.backend(backend).generate(algorithm, label);
  }

  async get(fingerprint: string): Promise<KeyView> {
    return (await this.#find(fingerprint)).view;
  }

  async list(): Promise<KeyView[]> {
    const all: KeyView[] = [];
    for (const b of this.#backends.values()) all.push(...(await b.list()));
    return sortViews(all);
  }

  async survey(): Promise<KeySurvey> {
    const out: KeySurvey = { keys: [], problems: [] };
    for (const b of this.#backends.values()) {
      const s = await b.survey();
      out.keys.push(...s.keys);
      out.problems.push(...s.problems);
    }
    out.keys = sortViews(out.keys);
    return out;
  }

  async disable(fingerprint: string): Promise<KeyView> {
    return (await this.#find(fingerprint)).backend.disable(fingerprint);
  }

  async check(): Promise<KeyCheckResult[]> {
    const all: KeyCheckResult[] = [];
    for (const b of this.#backends.values()) all.push(...(await b.check()));
    return all;
  }

  async signBytes(
    fingerprint: string,
    message: Uint8Array,
  ): Promise<{ view: KeyView; signature: Uint8Array }> {
    const fp = normalizeFingerprint(fingerprint);
    const known = this.#owner.get(fp);
    if (known) return known.signBytes(fp, message);
    return (await this.#find(fp)).backend.signBytes(fp, message);
  }

  async close(): Promise<void> {
    for (const b of this.#backends.values()) await b.close?.();
  }

  async #find(fingerprint: string): Promise<{ backend: KeyBackend; view: KeyView }> {
    const fp = normalizeFingerprint(fingerprint);
    const known = this.#owner.get(fp);
    if (known) return { backend: known, view: await known.get(fp) };
    for (const backend of this.#backends.values()) {
      try {
        const view = await backend.get(fp);
        this.#owner.set(fp, backend);
        return { backend, view };
      } catch (err) {
        if (!(err instanceof SigningError && err.code === 'NOT_FOUND')) throw err;
      }
    }
    throw new SigningError('NOT_FOUND', `no key ${fp}`);
  }
}

function sortViews(views: KeyView[]): KeyView[] {
  return views.sort(
    (a, b) => a.createdAt.localeCompare(b.createdAt) || a.fingerprint.localeCompare(b.fingerprint),
  );
}
