#!/usr/bin/env node
// Completes package-lock.json with the platform-specific optional packages the registry mirror here does not
// serve (e.g. darwin/win32 builds of biome, buf and msgpackr-extract). npm leaves them out of the lock when it
// cannot see them, and `npm ci` then refuses the lock as "not in sync". Each added entry is marked optional with
// its os/cpu/libc, so npm skips it on other platforms without fetching anything.
// Run after any `npm install` that rewrites the lock: `node .ci/lock-platforms.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pkgs = lock.packages;

const OS = ['android', 'darwin', 'linux', 'win32', 'freebsd', 'openbsd', 'sunos', 'aix'];
const CPU = ['arm64', 'x64', 'arm', 'ia32', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el'];

/** Reads os/cpu/libc from a platform package name such as `cli-linux-arm64-musl` or `buf-linux-armv7`. */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpuPart = parts.find((p) => CPU.includes(p) || p === 'armv7');
  if (!os || !cpuPart) return undefined;
  const entry = { os: [os], cpu: [cpuPart === 'armv7' ? 'arm' : cpuPart] };
  if (os === 'linux') entry.libc = [parts.includes('musl') ? 'musl' : 'glibc'];
  return entry;
}

let added = 0;
for (const [path, meta] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const target = `node_modules/${dep}`;
    if (pkgs[target] || pkgs[`${path}/${target}`]) continue;
    const platform = platformOf(dep);
    if (!platform) {
      console.error(`lock-platforms: ${dep} is missing from the lock and is not a platform package; run npm install`);
      process.exitCode = 1;
      continue;
    }
    pkgs[target] = { version, ...platform, ...(meta.dev ? { dev: true } : {}), optional: true };
    added++;
  }
}
const sorted = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
lock.packages = sorted;
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-platforms: ${added} platform entries added`);
