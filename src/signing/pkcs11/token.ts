// A connection to one PKCS#11 token: the module (pkcs11js, an optional native dependency, loaded on first use),
// the slot found by token label or number, a pool of logged-in sessions, and recovery when the token goes away
// (the module is finalized and initialized again, the slot found again, sessions reopened) — never a crash.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { SigningError } from '../errors.ts';

// The slice of pkcs11js this module uses (its own typings live in an optional dependency).
type Handle = Buffer;
export interface Attribute {
  type: number;
  value?: number | boolean | string | Buffer;
}
interface Pkcs11Module {
  load(path: string): void;
  C_Initialize(options?: { flags?: number }): void;
  C_Finalize(): void;
  C_GetSlotList(tokenPresent?: boolean): Handle[];
  C_GetTokenInfo(slot: Handle): { label: string };
  C_GetMechanismList(slot: Handle): number[];
  C_OpenSession(slot: Handle, flags: number): Handle;
  C_CloseSession(session: Handle): void;
  C_Login(session: Handle, userType: number, pin?: string): void;
  C_FindObjectsInit(session: Handle, template: Attribute[]): void;
  C_FindObjects(session: Handle, max: number): Handle[];
  C_FindObjectsFinal(session: Handle): void;
  C_GetAttributeValue(session: Handle, object: Handle, template: Attribute[]): Attribute[];
  C_SetAttributeValue(session: Handle, object: Handle, template: Attribute[]): void;
  C_GenerateKeyPair(
    session: Handle,
    mechanism: { mechanism: number },
    pub: Attribute[],
    priv: Attribute[],
  ): { publicKey: Handle; privateKey: Handle };
  C_SignInit(session: Handle, mechanism: { mechanism: number }, key: Handle): void;
  C_SignAsync(session: Handle, data: Buffer, out: Buffer): Promise<Buffer>;
}
interface Pkcs11Js {
  PKCS11: new () => Pkcs11Module;
  [constant: string]: unknown;
}

/** PKCS#11 constants: pkcs11js's, plus the EdDSA ones it lacks (PKCS#11 3.0). */
export const CK = {
  CKM_EC_EDWARDS_KEY_PAIR_GEN: 0x1055,
  CKM_EDDSA: 0x1057,
  CKM_EC_KEY_PAIR_GEN: 0x1040,
  CKM_ECDSA: 0x1041,
  CKO_PUBLIC_KEY: 2,
  CKO_PRIVATE_KEY: 3,
  CKA_CLASS: 0x0,
  CKA_TOKEN: 0x1,
  CKA_PRIVATE: 0x2,
  CKA_LABEL: 0x3,
  CKA_ID: 0x102,
  CKA_SENSITIVE: 0x103,
  CKA_ENCRYPT: 0x104,
  CKA_DECRYPT: 0x105,
  CKA_WRAP: 0x106,
  CKA_UNWRAP: 0x107,
  CKA_DERIVE: 0x10c,
  CKA_SIGN: 0x108,
  CKA_VERIFY: 0x10a,
  CKA_EXTRACTABLE: 0x162,
  CKA_NEVER_EXTRACTABLE: 0x164,
  CKA_EC_PARAMS: 0x180,
  CKA_EC_POINT: 0x181,
  CKF_RW_SESSION: 0x2,
  CKF_SERIAL_SESSION: 0x4,
  CKU_USER: 1,
} as const;

const CKF_OS_LOCKING_OK = 0x2;

const CKR = {
  CRYPTOKI_ALREADY_INITIALIZED: 0x191,
  PIN_INCORRECT: 0xa0,
  PIN_LOCKED: 0xa4,
  PIN_EXPIRED: 0xa3,
  USER_ALREADY_LOGGED_IN: 0x100,
  MECHANISM_INVALID: 0x70,
} as const;

/** Return values after which the connection is rebuilt: the token, the session or the module went away. */
const LOST = new Set([
  0x5, // GENERAL_ERROR
  0x6, // FUNCTION_FAILED
  0x3, // SLOT_ID_INVALID
  0x30, // DEVICE_ERROR
  0x32, // DEVICE_REMOVED
  0x82, // OBJECT_HANDLE_INVALID (the token was replaced)
  0xb0, // SESSION_CLOSED
  0xb3, // SESSION_HANDLE_INVALID
  0xe0, // TOKEN_NOT_PRESENT
  0xe1, // TOKEN_NOT_RECOGNIZED
  0x101, // USER_NOT_LOGGED_IN
  0x190, // CRYPTOKI_NOT_INITIALIZED
]);

export interface TokenOptions {
  /** Path of the PKCS#11 library (PKCS11_MODULE). */
  module: string;
  /** The token, by label (PKCS11_TOKEN_LABEL) or by slot number (PKCS11_SLOT). */
  tokenLabel?: string;
  slot?: number;
  pin: string;
  /** Sessions kept open: how many signatures run at once. */
  sessions: number;
  /** Mechanisms to treat as absent (an operator may forbid one; tests use it to play a token without EdDSA). */
  withoutMechanisms?: readonly number[];
}

interface Connection {
  module: Pkcs11Module;
  /** The shared module's generation this connection's sessions belong to. */
  moduleGeneration: number;
  slot: Handle;
  mechanisms: Set<number>;
  idle: Handle[];
  all: Handle[];
  /** Bumped on every reconnect: object handles from an older connection are stale. */
  generation: number;
}

const ckrOf = (err: unknown): number | undefined => {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'number' ? code : undefined;
};

let loaded: Pkcs11Js | undefined;
function pkcs11js(): Pkcs11Js {
  if (!loaded) {
    try {
      loaded = createRequire(import.meta.url)('pkcs11js') as Pkcs11Js;
    } catch (err) {
      throw new SigningError(
        'CONFIG',
        'the PKCS#11 backend needs the optional npm package pkcs11js, which is not installed or did not build (npm install pkcs11js)',
        undefined,
        { cause: err },
      );
    }
  }
  return loaded;
}

/**
 * A PKCS#11 library is initialized once per process, however many tokens use it: one shared instance per path.
 * `reset` finalizes and initializes it again (the way to see a token that was removed and inserted again); every
 * connection made before holds stale sessions and reconnects when it notices the new generation.
 */
interface SharedModule {
  module: Pkcs11Module;
  generation: number;
  users: number;
  /** Calls into the library in flight: a reset waits for them (finalizing under a running C_Sign crashes). */
  busy: number;
  onIdle?: () => void;
  resetting?: Promise<void>;
}
const modules = new Map<string, SharedModule>();

function acquireModule(path: string): SharedModule {
  let shared = modules.get(path);
  if (!shared) {
    const module = new (pkcs11js().PKCS11)();
    try {
      module.load(path);
    } catch (err) {
      throw new SigningError('CONFIG', `PKCS11_MODULE ${path} does not load`, undefined, { cause: err });
    }
    initialize(module, path);
    shared = { module, generation: 1, users: 0, busy: 0 };
    modules.set(path, shared);
  }
  shared.users++;
  return shared;
}

function initialize(module: Pkcs11Module, path: string): void {
  try {
    // Signatures run on libuv's thread pool (C_SignAsync): the library must lock for itself, or concurrent calls
    // corrupt its heap.
    module.C_Initialize({ flags: CKF_OS_LOCKING_OK });
  } catch (err) {
    if (ckrOf(err) === CKR.CRYPTOKI_ALREADY_INITIALIZED) return;
    throw new SigningError('UNAVAILABLE', `PKCS11_MODULE ${path} does not initialize`, undefined, {
      cause: err,
    });
  }
}

/** Finalizes and initializes the library again, once the calls in flight have returned; new calls wait. */
function resetModule(path: string, shared: SharedModule, seen: number): Promise<void> {
  if (shared.resetting) return shared.resetting;
  if (shared.generation !== seen) return Promise.resolve(); // someone else already did
  shared.resetting = (async () => {
    while (shared.busy > 0) {
      await new Promise<void>((resolve) => {
        shared.onIdle = resolve;
      });
    }
    try {
      shared.module.C_Finalize();
    } catch {}
    shared.generation++;
    initialize(shared.module, path);
  })().finally(() => {
    shared.resetting = undefined;
  });
  return shared.resetting;
}

function releaseModule(path: string, shared: SharedModule): void {
  if (--shared.users > 0 || modules.get(path) !== shared) return;
  modules.delete(path);
  try {
    shared.module.C_Finalize();
  } catch {}
}

export class Pkcs11Token {
  readonly #opts: TokenOptions;
  #shared: SharedModule | undefined;
  #conn: Connection | undefined;
  #connecting: Promise<Connection> | undefined;
  #generation = 0;
  /** A refused PIN is never tried again by this process: tokens lock after a few wrong tries. */
  #pinRefused: SigningError | undefined;
  readonly #waiting: (() => void)[] = [];

  constructor(opts: TokenOptions) {
    if (opts.sessions < 1) throw new SigningError('CONFIG', 'PKCS11_SESSIONS must be at least 1');
    pkcs11js(); // a missing binding is a configuration error at start, not at the first signature
    if (!existsSync(opts.module))
      throw new SigningError('CONFIG', `PKCS11_MODULE ${opts.module} does not exist`);
    this.#opts = opts;
  }

  /** Which token this is, for messages (never the PIN). */
  get description(): string {
    return this.#opts.tokenLabel !== undefined
      ? `token "${this.#opts.tokenLabel}"`
      : `slot ${this.#opts.slot}`;
  }

  async hasMechanism(mechanism: number): Promise<boolean> {
    return (await this.#connection()).mechanisms.has(mechanism);
  }

  /**
   * Runs `work` on a logged-in session of its own. When the token, session or module was lost, the connection
   * is rebuilt and `work` runs once more; `generation` tells it whether handles it cached are still valid.
   */
  async withSession<T>(
    work: (m: Pkcs11Module, session: Handle, generation: number) => Promise<T> | T,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const conn = await this.#connection();
      const session = await this.#acquire(conn);
      if (!session) continue; // the connection was rebuilt while this waited for a session
      const shared = this.#shared as SharedModule;
      let lost = false;
      shared.busy++;
      try {
        return await work(conn.module, session, conn.generation);
      } catch (err) {
        const ckr = ckrOf(err);
        if (!(ckr !== undefined && LOST.has(ckr) && attempt === 0)) throw this.#translate(err);
        lost = true;
      } finally {
        if (--shared.busy === 0) {
          const idle = shared.onIdle;
          shared.onIdle = undefined;
          idle?.();
        }
        this.#release(conn, session);
      }
      if (lost) await this.#drop(conn);
    }
  }

  async close(): Promise<void> {
    const conn = this.#conn;
    this.#conn = undefined;
    if (conn) this.#closeSessions(conn.module, conn.all);
    if (this.#shared) releaseModule(this.#opts.module, this.#shared);
    this.#shared = undefined;
  }

  #translate(err: unknown): unknown {
    if (err instanceof SigningError) return err;
    const ckr = ckrOf(err);
    if (ckr === CKR.MECHANISM_INVALID) {
      return new SigningError('UNSUPPORTED', `the ${this.description} refused the mechanism`, undefined, {
        cause: err,
      });
    }
    const what = ckr !== undefined ? `CKR 0x${ckr.toString(16)}` : (err as Error)?.message;
    return new SigningError('UNAVAILABLE', `the ${this.description} failed (${what})`, undefined, {
      cause: err,
    });
  }

  async #connection(): Promise<Connection> {
    if (this.#pinRefused) throw this.#pinRefused;
    await this.#shared?.resetting?.catch(() => {});
    const conn = this.#conn;
    if (conn && this.#shared?.generation === conn.moduleGeneration) return conn;
    if (conn) this.#conn = undefined; // another token reset the shared module: these sessions are gone
    this.#connecting ??= Promise.resolve()
      .then(() => this.#connect())
      .finally(() => {
        this.#connecting = undefined;
      });
    return this.#connecting;
  }

  async #connect(): Promise<Connection> {
    this.#shared ??= acquireModule(this.#opts.module);
    const shared = this.#shared;
    const { module } = shared;
    const moduleGeneration = shared.generation;
    const sessions: Handle[] = [];
    try {
      let slot = this.#findSlot(module);
      if (!slot) {
        // A library lists its tokens when initialized: a token inserted (or created) since is seen after a reset.
        await resetModule(this.#opts.module, shared, moduleGeneration);
        slot = this.#findSlot(module);
        if (!slot) throw new SigningError('UNAVAILABLE', `no ${this.description} is present`);
      }
      const excluded = new Set(this.#opts.withoutMechanisms ?? []);
      const mechanisms = new Set(module.C_GetMechanismList(slot).filter((m) => !excluded.has(m)));
      for (let i = 0; i < this.#opts.sessions; i++) {
        sessions.push(module.C_OpenSession(slot, CK.CKF_SERIAL_SESSION | CK.CKF_RW_SESSION));
      }
      try {
        module.C_Login(sessions[0] as Handle, CK.CKU_USER, this.#opts.pin);
      } catch (err) {
        const ckr = ckrOf(err);
        if (ckr === CKR.PIN_INCORRECT || ckr === CKR.PIN_LOCKED || ckr === CKR.PIN_EXPIRED) {
          const why =
            ckr === CKR.PIN_LOCKED ? 'PIN locked' : ckr === CKR.PIN_EXPIRED ? 'PIN expired' : 'wrong PIN';
          this.#pinRefused = new SigningError(
            'WRONG_PIN',
            `the ${this.description} refused PKCS11_PIN (${why}); it is not tried again until Quill restarts`,
          );
          throw this.#pinRefused;
        }
        if (ckr !== CKR.USER_ALREADY_LOGGED_IN) throw err;
      }
      const conn: Connection = {
        module,
        moduleGeneration: shared.generation,
        slot,
        mechanisms,
        idle: [...sessions],
        all: sessions,
        generation: ++this.#generation,
      };
      this.#conn = conn;
      return conn;
    } catch (err) {
      this.#closeSessions(module, sessions);
      const ckr = ckrOf(err);
      // The module was reset under this connection attempt, or lost the token list: once more from scratch.
      if (ckr !== undefined && LOST.has(ckr) && shared.generation === moduleGeneration) {
        await resetModule(this.#opts.module, shared, moduleGeneration).catch(() => {});
      }
      throw this.#translate(err);
    }
  }

  #findSlot(module: Pkcs11Module): Handle | undefined {
    const slots = module.C_GetSlotList(true);
    return this.#opts.tokenLabel !== undefined
      ? slots.find((s) => module.C_GetTokenInfo(s).label.trim() === this.#opts.tokenLabel)
      : slots.find((s) => s.readUIntLE(0, Math.min(6, s.length)) === this.#opts.slot);
  }

  /**
   * Forget a lost connection (once, whoever noticed first) and reset the module, so that the next use finds the
   * token again (a PKCS#11 library only rescans its tokens when initialized).
   */
  async #drop(conn: Connection): Promise<void> {
    if (this.#conn === conn) {
      this.#conn = undefined;
      for (const w of this.#waiting.splice(0)) w(); // woken waiters see the connection is gone
    }
    // The reset's C_Finalize closes every session, once the calls still using them have returned.
    if (this.#shared)
      await resetModule(this.#opts.module, this.#shared, conn.moduleGeneration).catch(() => {});
  }

  #closeSessions(module: Pkcs11Module, sessions: Handle[]): void {
    for (const s of sessions) {
      try {
        module.C_CloseSession(s);
      } catch {}
    }
  }

  async #acquire(conn: Connection): Promise<Handle | undefined> {
    for (;;) {
      if (this.#conn !== conn) return undefined;
      const s = conn.idle.pop();
      if (s) return s;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  #release(conn: Connection, session: Handle): void {
    if (this.#conn !== conn) return;
    conn.idle.push(session);
    this.#waiting.shift()?.();
  }
}
