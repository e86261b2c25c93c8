/**
 * The registries' interface choices, dispatched by the implementing template's registry: the token-standard choices
 * run only through their interface (`iface`), as in Daml, where an interface choice is exercised on an interface
 * contract id.
 */
import { isInterface, TRANSFER_FACTORY_INTERFACE, TRANSFER_INSTRUCTION_INTERFACE } from '@quill/canton/token';
import type { Ctx, Outcome } from '../daml.ts';
import type { Contract } from '../state/index.ts';
import { factoryTransfer, instructionChoice, publicFetch } from './engine.ts';
import { registryOfPackage } from './registries.ts';

export function registryChoice(
  ctx: Ctx,
  c: Contract,
  choice: string,
  arg: unknown,
  iface: string | undefined,
): Outcome | undefined {
  const reg = registryOfPackage(c.packageName);
  if (!reg || iface === undefined) return undefined;
  if (isInterface(iface, TRANSFER_FACTORY_INTERFACE) && reg.isFactory(c)) {
    if (choice === 'TransferFactory_Transfer') return factoryTransfer(ctx, reg, arg);
    if (choice === 'TransferFactory_PublicFetch') return publicFetch(ctx, reg, arg);
  }
  if (isInterface(iface, TRANSFER_INSTRUCTION_INTERFACE) && reg.instructionOf(c))
    return instructionChoice(ctx, reg, c, choice, arg);
  return undefined;
}
