/**
 * The one table of interface implementations of the sandbox's templates (the demo coin and the registries), built
 * on first use.
 */
import { COIN_IMPLEMENTATIONS } from '../coin.ts';
import { InterfaceTable } from './interfaces.ts';
import { REGISTRIES } from './registries.ts';

let table: InterfaceTable | undefined;

export function interfaces(): InterfaceTable {
  table ??= new InterfaceTable([...COIN_IMPLEMENTATIONS, ...REGISTRIES.flatMap((r) => r.implementations)]);
  return table;
}
