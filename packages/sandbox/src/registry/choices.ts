/**
 * The registries' interface choices, dispatched by the implementing template: the token-standard choices run only
 * through their interface (`iface`), as in Daml, where an interface choice is exercised on an interface contract id.
 */
import type { Ctx, Outcome } from '../daml.ts';
import type { Contract } from '../state/index.ts';

export function registryChoice(
  _ctx: Ctx,
  _c: Contract,
  _choice: string,
  _arg: unknown,
  _iface: string | undefined,
): Outcome | undefined {
  return undefined;
}
