// Shared helpers for the signing tests: temp key stores with a cheap scrypt cost.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { KeyStore } from '../../src/signing/index.ts';

export const PASSPHRASE = 'correct horse battery staple';
export const FAST_SCRYPT = { N: 1024, r: 8, p: 1 };

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

export async function tempDir(prefix = 'quill-keys-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

export async function tempStore(passphrase = PASSPHRASE): Promise<KeyStore> {
  return new KeyStore({ dir: join(await tempDir(), 'keys'), passphrase, scrypt: FAST_SCRYPT });
}
