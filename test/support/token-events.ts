// Ledger events of token-standard contracts as the participant renders them for a reader with InterfaceFilters
// (token-standard.md §3.2): interface views on created events (package-id form), implementedInterfaces on
// consuming exercises. For tests of the watcher's index without a registry.
import {
  HOLDING_INTERFACE,
  TOKEN_STANDARD_PACKAGES,
  TRANSFER_INSTRUCTION_INTERFACE,
} from '@quill/canton/token';
import type { IndexedTransaction } from '../../src/history/index.ts';

/** An interface id as the participant writes it: package-id form. */
const packageIdForm = (qualified: string) => {
  const [name, module, entity] = qualified.slice(1).split(':');
  const pkg = TOKEN_STANDARD_PACKAGES.find((p) => p.name === name);
  return `${pkg?.packageId}:${module}:${entity}`;
};
const HOLDING = packageIdForm(HOLDING_INTERFACE);
const INSTRUCTION = packageIdForm(TRANSFER_INSTRUCTION_INTERFACE);
const OK = { code: 0, message: '', details: [] };

export interface Instrument {
  admin: string;
  id: string;
}

export function holdingCreated(
  contractId: string,
  owner: string,
  instrument: Instrument,
  amount: string,
  lock: Record<string, unknown> | null = null,
  createdAt = '2026-01-01T00:00:00Z',
) {
  return {
    CreatedEvent: {
      offset: 0,
      nodeId: 0,
      contractId,
      templateId: `reg${instrument.id}:Registry.Token:Holding${instrument.id}`,
      createArgument: { whatever: 'a registry writes', owner, amount },
      interfaceViews: [
        {
          interfaceId: HOLDING,
          viewStatus: OK,
          viewValue: { owner, instrumentId: instrument, amount, lock, meta: { values: {} } },
        },
      ],
      witnessParties: [owner],
      signatories: [instrument.admin, owner],
      observers: [],
      createdAt,
      packageName: 'registry',
      representativePackageId: 'reg',
      acsDelta: true,
    },
  };
}

export function instructionCreated(
  contractId: string,
  t: { sender: string; receiver: string; amount: string; instrument: Instrument; memo?: string },
  executeBefore = '2099-01-01T00:00:00Z',
) {
  return {
    CreatedEvent: {
      offset: 0,
      nodeId: 0,
      contractId,
      templateId: 'reg:Registry.Token:TransferOffer',
      createArgument: {},
      interfaceViews: [
        {
          interfaceId: INSTRUCTION,
          viewStatus: OK,
          viewValue: {
            originalInstructionCid: null,
            transfer: {
              sender: t.sender,
              receiver: t.receiver,
              amount: t.amount,
              instrumentId: t.instrument,
              requestedAt: '2026-01-01T00:00:00Z',
              executeBefore,
              inputHoldingCids: [],
              meta: {
                values: t.memo !== undefined ? { 'splice.lfdecentralizedtrust.org/reason': t.memo } : {},
              },
            },
            status: { tag: 'TransferPendingReceiverAcceptance', value: {} },
            meta: { values: {} },
          },
        },
      ],
      witnessParties: [t.sender, t.receiver],
      signatories: [t.instrument.admin, t.sender],
      observers: [t.receiver],
      createdAt: '2026-01-01T00:00:00Z',
      packageName: 'registry',
      representativePackageId: 'reg',
      acsDelta: true,
    },
  };
}

/** A consuming exercise of a holding or instruction (an Archive, an Accept...). */
export function consumed(contractId: string, actor: string, iface: 'holding' | 'instruction' = 'holding') {
  return {
    ExercisedEvent: {
      offset: 0,
      nodeId: 0,
      contractId,
      templateId: 'reg:Registry.Token:Any',
      choice: 'Archive',
      choiceArgument: {},
      actingParties: [actor],
      consuming: true,
      witnessParties: [actor],
      lastDescendantNodeId: 0,
      exerciseResult: {},
      packageName: 'registry',
      implementedInterfaces: [iface === 'holding' ? HOLDING : INSTRUCTION],
      acsDelta: true,
    },
  };
}

/** An indexed transaction at `offset` for `parties` with these events. */
export function tokenTx(offset: number, parties: string[], events: unknown[]): IndexedTransaction {
  const updateId = `tok-${offset}-${Math.random().toString(36).slice(2, 8)}`;
  return {
    updateId,
    offset,
    recordTime: '2026-01-01T00:00:00Z',
    parties,
    transaction: {
      updateId,
      offset,
      events,
      synchronizerId: 's',
      effectiveAt: '2026-01-01T00:00:00Z',
      recordTime: '2026-01-01T00:00:00Z',
    },
  } as unknown as IndexedTransaction;
}
