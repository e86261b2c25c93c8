// Every key backend Quill can use, in one table: the configuration composes their variables, `quill serve` and the
// commands open the configured ones, and the API, the console and the CLI list them from here. A new backend (a
// cloud KMS, Vault transit) is a `KeyBackend` plus its `KeyBackendType`, added to this list.
import type { KeyBackendType } from './backend-type.ts';
import { FILE_BACKEND } from './keystore-backend.ts';
import { PKCS11_BACKEND } from './pkcs11/config.ts';

export const KEY_BACKEND_TYPES: readonly KeyBackendType[] = [
  FILE_BACKEND,
  PKCS11_BACKEND,
] as KeyBackendType[];

export function backendType(name: string): KeyBackendType | undefined {
  return KEY_BACKEND_TYPES.find((t) => t.name === name);
}
