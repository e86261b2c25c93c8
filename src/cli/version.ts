// The release, package.json's `version` (SemVer: README "Versions"): `quill --version` and backup manifests.
import { readFileSync } from 'node:fs';

export function quillVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
