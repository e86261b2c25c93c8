/**
 * The one table of interface implementations of the sandbox's templates (the demo coin and the registries), built
 * on first use so that the modules declaring them may import each other.
 */
import { COIN_IMPLEMENTATIONS } from '../coin.ts';
import { type Implementation, InterfaceTable } from './interfaces.ts';

const declared: (() => readonly Implementation[])[] = [() => COIN_IMPLEMENTATIONS];
let table: InterfaceTable | undefined;

export function interfaces(): InterfaceTable {
  table ??= new InterfaceTable(declared.flatMap((d) => d()));
  return table;
}
