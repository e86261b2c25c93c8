// Which key controls which party: one JSON file per party in KEYS_DIR/parties/, written atomically (0600).
// File names are sha256(partyId) so any party id (spaces, colons, 255 characters) maps to a safe name.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, FINGERPRINT_PATTERN, writeFileAtomic } from '../signing/index.ts';
import { PartyError } from './errors.ts';

const Fingerprint = z.string().regex(FINGERPRINT_PATTERN);

/**
 * One of a party's protocol signing keys. `quill`: its private half is in a Quill key backend (file, PKCS#11)
 * and Quill signs with it at once. `external`: someone else holds it (a person with a hardware wallet, another
 * custody system); Quill keeps only its public key and verifies what the holder posts before counting it.
 */
export const SigningKeyEntry = z.strictObject({
  fingerprint: Fingerprint,
  holder: z.enum(['quill', 'external']),
  /** DER SubjectPublicKeyInfo, standard base64. */
  publicKey: z.string().min(1).max(400),
  keySpec: z.enum([
    'SIGNING_KEY_SPEC_EC_CURVE25519',
    'SIGNING_KEY_SPEC_EC_P256',
    'SIGNING_KEY_SPEC_EC_P384',
    'SIGNING_KEY_SPEC_EC_SECP256K1',
  ]),
  label: z.string().max(120).nullable(),
});
export type SigningKeyEntry = z.infer<typeof SigningKeyEntry>;

/** A participant hosting the party (the `PartyToParticipant` mapping's hosts). */
export const PartyHost = z.strictObject({
  participantUid: z.string().min(1).max(300),
  permission: z.enum(['confirmation', 'observation']),
  /** The name of the configured ledger host (LEDGER_HOSTS) Quill allocated the party on; null for the primary. */
  host: z.string().max(64).nullable(),
});
export type PartyHost = z.infer<typeof PartyHost>;

/**
 * What Quill knows of a party. `keyFingerprint` is the party's namespace key (the fingerprint in its id). A
 * record without `signing` is a single-key party (layout `single`, written before M-of-N): the namespace key is
 * its one signing key, threshold 1. `serial` is the serial of the party's `PartyToParticipant` as last written.
 */
export const PartyRecord = z.strictObject({
  partyId: z.string().min(1).max(255),
  keyFingerprint: Fingerprint,
  synchronizerId: z.string().min(1),
  createdAt: z.string().datetime(),
  layout: z.enum(['single', 'separate']).optional(),
  signing: z
    .strictObject({
      threshold: z.number().int().min(1).max(20),
      keys: z.array(SigningKeyEntry).min(1).max(20),
    })
    .optional(),
  hosts: z.array(PartyHost).max(32).optional(),
  confirmationThreshold: z.number().int().min(1).max(32).optional(),
  serial: z.number().int().min(1).optional(),
  updatedAt: z.string().datetime().optional(),
});
export type PartyRecord = z.infer<typeof PartyRecord>;

const FILE_NAME = /^[0-9a-f]{64}\.json$/;
const FRESH_MS = 1000;

async function mtimeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return undefined;
  }
}

export class PartyRegistry {
  /** The directory holding the party files (`<keysDir>/parties`). */
  readonly dir: string;
  readonly #known = new Map<string, { record: PartyRecord; mtimeMs: number; checkedAt: number }>();

  constructor(options: { dir: string }) {
    this.dir = join(options.dir, 'parties');
  }

  #path(partyId: string): string {
    return join(this.dir, `${createHash('sha256').update(partyId, 'utf8').digest('hex')}.json`);
  }

  /**
   * Remembers a party. Adding the same party again with the same namespace key and synchronizer returns the
   * record already there; another key or synchronizer is a CONFLICT (the first mapping stays).
   */
  async add(record: PartyRecord): Promise<PartyRecord> {
    const parsed = PartyRecord.safeParse(record);
    if (!parsed.success) throw new PartyError('BAD_INPUT', 'not a valid party record');
    const existing = await this.get(record.partyId);
    if (existing) {
      if (
        existing.keyFingerprint === record.keyFingerprint &&
        existing.synchronizerId === record.synchronizerId
      ) {
        return existing;
      }
      throw new PartyError(
        'CONFLICT',
        `party ${record.partyId} is already registered with key ${existing.keyFingerprint} on ${existing.synchronizerId}`,
      );
    }
    return this.#write(parsed.data);
  }

  /**
   * Replaces a party's record after a topology change (a new key set or threshold): only from the serial it was
   * read at, so two changes racing cannot both land (the loser gets a CONFLICT and reads again).
   */
  async replace(record: PartyRecord, fromSerial: number): Promise<PartyRecord> {
    const parsed = PartyRecord.safeParse(record);
    if (!parsed.success) throw new PartyError('BAD_INPUT', 'not a valid party record');
    this.#known.delete(record.partyId);
    const existing = await this.get(record.partyId);
    if (!existing) throw new PartyError('BAD_INPUT', `party ${record.partyId} is not registered`);
    if ((existing.serial ?? 1) !== fromSerial) {
      throw new PartyError(
        'CONFLICT',
        `party ${record.partyId} changed meanwhile (serial ${existing.serial ?? 1}, not ${fromSerial})`,
      );
    }
    return this.#write(parsed.data);
  }

  async #write(r: PartyRecord): Promise<PartyRecord> {
    await ensurePrivateDir(this.dir);
    await writeFileAtomic(this.#path(r.partyId), `${JSON.stringify(r, null, 2)}\n`);
    this.#known.delete(r.partyId);
    return r;
  }

  async get(partyId: string): Promise<PartyRecord | undefined> {
    // On every submission's accept path: a hit is reused for a second, then revalidated by the file's mtime (a
    // key rotation in another process rewrites it). Misses are not cached (another process may onboard it).
    const path = this.#path(partyId);
    const hit = this.#known.get(partyId);
    const now = Date.now();
    if (hit && now - hit.checkedAt < FRESH_MS) return hit.record;
    if (hit) {
      const mtimeMs = await mtimeOf(path);
      if (mtimeMs === hit.mtimeMs) {
        hit.checkedAt = now;
        return hit.record;
      }
    }
    const mtimeMs = await mtimeOf(path);
    const record = await this.#read(path);
    if (record && record.partyId !== partyId) throw new PartyError('CORRUPT', `${path}: holds another party`);
    if (record && mtimeMs !== undefined) this.#known.set(partyId, { record, mtimeMs, checkedAt: now });
    return record;
  }

  /**
   * The ids of every registered party, for the ledger watcher, which asks before every page it reads: the listing
   * is read again only when the directory changed (adding, rewriting or removing a party renames a file in it, which
   * moves its mtime). A listing taken within a second of that mtime is not trusted (file times are coarse: a
   * second change in the same tick would not move it).
   */
  async partyIds(): Promise<string[]> {
    const mtimeMs = await mtimeOf(this.dir);
    const hit = this.#listing;
    if (hit && mtimeMs !== undefined && hit.mtimeMs === mtimeMs && hit.listedAt - mtimeMs > FRESH_MS)
      return hit.ids;
    const listedAt = Date.now();
    const ids = (await this.list()).map((r) => r.partyId);
    this.#listing = mtimeMs === undefined ? undefined : { ids, mtimeMs, listedAt };
    return ids;
  }
  #listing: { ids: string[]; mtimeMs: number; listedAt: number } | undefined;

  /** Every registered party, oldest first. */
  async list(): Promise<PartyRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new PartyError('CORRUPT', `${this.dir}: unreadable (${(err as NodeJS.ErrnoException).code})`);
    }
    const records: PartyRecord[] = [];
    for (const name of names.filter((n) => FILE_NAME.test(n))) {
      const record = await this.#read(join(this.dir, name));
      if (record) records.push(record);
    }
    return records.sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt) || a.partyId.localeCompare(b.partyId),
    );
  }

  /** The parties a key controls: as their namespace key or one of their signing keys. */
  async forKey(fingerprint: string): Promise<PartyRecord[]> {
    return (await this.list()).filter(
      (r) => r.keyFingerprint === fingerprint || r.signing?.keys.some((k) => k.fingerprint === fingerprint),
    );
  }

  async #read(path: string): Promise<PartyRecord | undefined> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new PartyError('CORRUPT', `${path}: unreadable (${(err as NodeJS.ErrnoException).code})`);
    }
    try {
      const record = PartyRecord.parse(JSON.parse(text));
      if (this.#path(record.partyId) !== path) throw new Error('name');
      return record;
    } catch {
      throw new PartyError('CORRUPT', `${path}: not a valid party record`);
    }
  }
}
