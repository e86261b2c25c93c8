// PartyRegistry: one 0600 file per party, idempotent add, conflicts, corrupt files named.
import { readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PartyRegistry } from '../../../src/parties/index.ts';
import { tempDir } from '../../support/keys.ts';

const fp = (c: string) => `1220${c.repeat(64)}`;
const record = (partyId: string, key = fp('a'), synchronizerId = 'sync::1220ab') => ({
  partyId,
  keyFingerprint: key,
  synchronizerId,
  createdAt: new Date().toISOString(),
});

describe('PartyRegistry', () => {
  it('stores any party id in its own 0600 file, atomically, and lists them', async () => {
    const dir = await tempDir();
    const registry = new PartyRegistry({ dir });
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[A-Za-z0-9_ -][A-Za-z0-9:_ -]{0,180}[A-Za-z0-9_ -]$/),
        async (hint) => {
          fc.pre(!seen.has(hint)); // adding a party again returns the first record (tested below)
          seen.add(hint);
          const r = record(`${hint}::${fp('b')}`);
          expect(await registry.add(r)).toEqual(r);
          expect(await registry.get(r.partyId)).toEqual(r);
        },
      ),
      { numRuns: 40 },
    );
    const names = await readdir(join(dir, 'parties'));
    expect(names.every((n) => /^[0-9a-f]{64}\.json$/.test(n))).toBe(true); // no temp files left
    expect((await stat(join(dir, 'parties', names[0]!))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'parties'))).mode & 0o777).toBe(0o700);
    expect((await registry.list()).length).toBe(names.length);
  });

  it('adding again is a no-op; another key or synchronizer is a conflict', async () => {
    const registry = new PartyRegistry({ dir: await tempDir() });
    const r = record(`alice::${fp('c')}`, fp('c'));
    await registry.add(r);
    expect(await registry.add({ ...r, createdAt: new Date(0).toISOString() })).toEqual(r);
    await expect(registry.add({ ...r, keyFingerprint: fp('d') })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(registry.add({ ...r, synchronizerId: 'other' })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(registry.add({ ...r, keyFingerprint: 'nope' })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    expect(await registry.forKey(fp('c'))).toEqual([r]);
    expect(await registry.get('bob::x')).toBeUndefined();
  });

  it('a corrupt or misplaced file is an error naming it', async () => {
    const dir = await tempDir();
    const registry = new PartyRegistry({ dir });
    const a = record(`a::${fp('e')}`);
    const b = record(`b::${fp('e')}`);
    await registry.add(a);
    await registry.add(b);
    const [fa, fb] = (await readdir(join(dir, 'parties'))).map((n) => join(dir, 'parties', n));
    const textB = await readFile(fb!, 'utf8');
    await writeFile(fa!, textB); // b's record under a's name
    await expect(registry.list()).rejects.toMatchObject({
      code: 'CORRUPT',
      message: expect.stringContaining(fa!),
    });
    await writeFile(fa!, '{');
    await expect(registry.list()).rejects.toMatchObject({ code: 'CORRUPT' });
  });
});

describe('PartyRegistry.partyIds (what the ledger watcher follows)', () => {
  it('sees a party added by another process at once, and reads an unchanged directory only once', async () => {
    const dir = await tempDir();
    const watcher = new PartyRegistry({ dir });
    const other = new PartyRegistry({ dir }); // the API process onboarding parties
    const a = record(`a::${fp('1')}`);
    const b = record(`b::${fp('2')}`);
    await other.add(a);
    expect(await watcher.partyIds()).toEqual([a.partyId]);
    await other.add(b); // within the same second: the listing is not trusted, read again
    expect((await watcher.partyIds()).sort()).toEqual([a.partyId, b.partyId].sort());

    // An old directory: its listing is kept while its mtime stays.
    const parties = join(dir, 'parties');
    const old = new Date(Date.now() - 60_000);
    await utimes(parties, old, old);
    expect(await watcher.partyIds()).toHaveLength(2);
    const c = record(`c::${fp('3')}`);
    await other.add(c);
    await utimes(parties, old, old); // the change hidden: the cached listing answers
    expect(await watcher.partyIds()).toHaveLength(2);
    const now = new Date();
    await utimes(parties, now, now); // what the rename itself did
    expect(await watcher.partyIds()).toHaveLength(3);
  });
});
