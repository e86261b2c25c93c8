/** The sandbox's token registries: Amulet (admin DSO) and the USDQ stablecoin (admin registrar). */
import { AMULET } from './amulet.ts';
import type { Registry } from './model.ts';
import { STABLECOIN } from './stablecoin.ts';

export const REGISTRIES: readonly Registry[] = [AMULET, STABLECOIN];

/** The registry whose package defines a contract's template. */
export function registryOfPackage(packageName: string): Registry | undefined {
  return REGISTRIES.find((r) => r.packageName === packageName);
}

export function registryByKey(key: string): Registry | undefined {
  return REGISTRIES.find((r) => r.key === key);
}
