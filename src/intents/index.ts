// Public surface of src/intents: Quill's own prepare of what a caller asks, verified before the accept path.
export { RegistryClient, type RegistryOptions } from './registry.ts';
export { HoldingReservations } from './reserve.ts';
export {
  type CommandsIntent,
  type InstructionIntent,
  type IntentDeps,
  IntentService,
  type PrepareLedger,
  type TransferIntent,
} from './service.ts';
