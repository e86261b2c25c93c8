// One key catalog over the configured backends (encrypted files, a PKCS#11 token, …): make or adopt a key on the
// backend asked for, find a key wherever it lives, list and check them all, and sign through the backend that
// holds the key.
import type { KeyAlgorithm } from './algorithms.ts';
import { backendType, KEY_BACKEND_TYPES } from './backends.ts';
import { SigningError } from './errors.ts';
import type { KeyBackend, KeyBackendName, KeyCatalog, KeyCheckResult, KeySurvey, KeyView } from './keys.ts';
import { normalizeFingerprint } from './keystore.ts';
import type { RawSigner } from './signer.ts';

/** A backend as the API, the console and the CLI show it. */
export interface BackendInfo {
  name: string;
  summary: string;
  configured: boolean;
  default: boolean;
  generate: boolean;
  adopt: boolean;
  /** What to set to use it, when it is not configured. */
  setUp?: string;
}

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

  /** Every backend Quill knows: whether it is configured here, the default, and what it can do. */
  describe(): BackendInfo[] {
    return KEY_BACKEND_TYPES.map((t) => {
      const b = this.#backends.get(t.name);
      return {
        name: t.name,
        summary: t.summary,
        configured: b !== undefined,
        default: t.name === this.defaultBackend,
        generate: b?.generate !== undefined,
        adopt: b?.adopt !== undefined,
        ...(b ? {} : { setUp: t.setUp }),
      };
    });
  }

  backend(name: KeyBackendName): KeyBackend {
    const b = this.#backends.get(name);
    if (b) return b;
    const type = backendType(name);
    if (!type) {
      const known = KEY_BACKEND_TYPES.map((t) => t.name).join(', ');
      throw new SigningError('BAD_INPUT', `unknown key backend; expected one of ${known}`);
    }
    throw new SigningError('UNSUPPORTED', `the ${name} key backend is not configured (${type.setUp})`);
  }

  generate(algorithm: KeyAlgorithm, label?: string | null, backend = this.defaultBackend): Promise<KeyView> {
    const b = this.backend(backend);
    if (!b.generate) throw new SigningError('UNSUPPORTED', `the ${backend} key backend does not make keys`);
    return b.generate(algorithm, label);
  }

  /** Takes over a key made outside Quill, named by `ref` as its backend names keys. */
  adopt(backend: KeyBackendName, ref: string, label?: string | null): Promise<KeyView> {
    const b = this.backend(backend);
    if (!b.adopt)
      throw new SigningError(
        'UNSUPPORTED',
        `the ${backend} key backend does not take over keys made elsewhere`,
      );
    return b.adopt(ref, label);
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
