// Which key controls which party: one JSON file per party in KEYS_DIR/parties/, written atomically (0600).
// File names are sha256(partyId) so any party id (spaces, colons, 255 characters) maps to a safe name.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, FINGERPRINT_PATTERN, writeFileAtomic } from '../signing/index.ts';
import { PartyError } from './errors.ts';

export const PartyRecord = z.strictObject({
  partyId: z.string().min(1).max(255),
  keyFingerprint: z.string().regex(FINGERPRINT_PATTERN),
  synchronizerId: z.string().min(1),
  createdAt: z.string().datetime(),
});
export type PartyRecord = z.infer<typeof PartyRecord>;

const FILE_NAME = /^[0-9a-f]{64}\.json$/;

export class PartyRegistry {
  /** The directory holding the party files (`<keysDir>/parties`). */
  readonly dir: string;
  readonly #known = new Map<string, PartyRecord>();

  constructor(options: { dir: string }) {
    this.dir = join(options.dir, 'parties');
  }

  #path(partyId: string): string {
    return join(this.dir, `${createHash('sha256').update(partyId, 'utf8').digest('hex')}.json`);
  }

  /**
   * Remembers a party. Adding the same record again is a no-op; the same party with another key or
   * synchronizer is a CONFLICT (the first mapping stays).
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
    await ensurePrivateDir(this.dir);
    const r = parsed.data;
    const ordered = {
      partyId: r.partyId,
      keyFingerprint: r.keyFingerprint,
      synchronizerId: r.synchronizerId,
      createdAt: r.createdAt,
    };
    await writeFileAtomic(this.#path(r.partyId), `${JSON.stringify(ordered, null, 2)}\n`);
    return ordered;
  }

  async get(partyId: string): Promise<PartyRecord | undefined> {
    // A binding never changes once written (a second one is a CONFLICT), so a hit is cached: this lookup is
    // on every submission's accept path. Misses are not cached (another process may onboard the party).
    const hit = this.#known.get(partyId);
    if (hit) return hit;
    const path = this.#path(partyId);
    const record = await this.#read(path);
    if (record && record.partyId !== partyId) throw new PartyError('CORRUPT', `${path}: holds another party`);
    if (record) this.#known.set(partyId, record);
    return record;
  }

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

  /** The parties a key controls. */
  async forKey(fingerprint: string): Promise<PartyRecord[]> {
    return (await this.list()).filter((r) => r.keyFingerprint === fingerprint);
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
