// Before anything is signed: does the transaction the participant prepared do exactly what was asked? Read from
// the decoded, hash-checked transaction's facts (src/policy), never from the participant's or registry's word.
// Each check returns the differences in words; any difference refuses the intent (422 INTENT_MISMATCH).
import { echo } from '@quill/canton/errors';
import type { Command } from '@quill/canton/ledger';
import {
  type InstrumentId,
  isInterface,
  TRANSFER_FACTORY_INTERFACE,
  TRANSFER_INSTRUCTION_INTERFACE,
} from '@quill/canton/token';
import { compareDecimal, type RootAction, type TransactionFacts } from '../policy/index.ts';
import { SubmissionRefused } from '../submissions/index.ts';
import { instructionChoice } from './registry.ts';

export interface TransferAsked {
  party: string;
  receiver: string;
  instrument: InstrumentId;
  amount: string;
  memo: string | null;
  executeBefore: string;
  factoryId: string;
}

export interface InstructionAsked {
  party: string;
  action: 'accept' | 'reject' | 'withdraw';
  instructionCid: string;
  sender: string;
  receiver: string;
  amount: string;
  instrument: InstrumentId;
}

export function refuseMismatch(differences: readonly string[]): void {
  if (differences.length === 0) return;
  throw new SubmissionRefused(
    422,
    'INTENT_MISMATCH',
    `the prepared transaction does not do what was asked, nothing was signed: ${differences.join('; ')}`,
  );
}

const sameInstrument = (a: InstrumentId, b: InstrumentId) => a.admin === b.admin && a.id === b.id;
const isZero = (d: string) => compareDecimal(d, '0') === 0;
const short = (s: string) => echo(s, 80);

/** Exactly one root, exercising `choice` on `contractId`. */
function oneRootExercise(f: TransactionFacts, choice: string, contractId: string, via: string): string[] {
  if (f.roots.length !== 1) return [`it has ${f.roots.length} root actions, not 1`];
  const r = f.roots[0] as RootAction;
  const out: string[] = [];
  if (r.kind !== 'exercise' || r.choice !== choice)
    out.push(`its root is ${r.kind} ${r.choice ?? ''} instead of ${choice}`.replace('  ', ' '));
  if (r.contractId !== contractId)
    out.push(`it acts on contract ${short(r.contractId ?? '?')}, not ${short(contractId)}`);
  if (!isInterface(r.interfaceId, via)) out.push(`it does not exercise through ${via.split(':').pop()}`);
  return out;
}

function unrecognized(f: TransactionFacts): string[] {
  return f.movements.unrecognized.map(
    (u) =>
      `an asset Quill cannot value moves (${u.why}; RECOGNIZERS_FILE teaches Quill a registry's holdings)`,
  );
}

/** A TransferFactory_Transfer from `party`: the one transfer asked, and nothing else leaving anyone. */
export function transferDifferences(f: TransactionFacts, want: TransferAsked): string[] {
  const out = oneRootExercise(f, 'TransferFactory_Transfer', want.factoryId, TRANSFER_FACTORY_INTERFACE);
  out.push(...unrecognized(f));
  const transfers = f.movements.transfers;
  const t = transfers[0];
  if (transfers.length !== 1 || !t) out.push(`it makes ${transfers.length} token transfers, not 1`);
  else {
    if (t.sender !== want.party) out.push(`the sender is ${short(t.sender)}, not ${short(want.party)}`);
    if (t.receiver !== want.receiver)
      out.push(`the receiver is ${short(t.receiver)}, not ${short(want.receiver)}`);
    if (!sameInstrument(t.instrument, want.instrument))
      out.push(`the instrument is ${short(t.instrument.id)} of ${short(t.instrument.admin)}`);
    if (compareDecimal(t.amount, want.amount) !== 0)
      out.push(`the amount is ${t.amount}, not ${want.amount}`);
    if ((t.memo ?? null) !== want.memo) out.push(`the memo is ${JSON.stringify(t.memo)}`);
    if (t.executeBefore === null || Date.parse(t.executeBefore) !== Date.parse(want.executeBefore))
      out.push(`executeBefore is ${t.executeBefore}, not ${want.executeBefore}`);
  }
  const self = want.receiver === want.party;
  let delivered = self;
  for (const d of f.movements.deltas) {
    const asked = d.party === want.party && sameInstrument(d.instrument, want.instrument);
    const expected = asked && !self ? want.amount : '0';
    if (compareDecimal(d.outflow, expected) !== 0)
      out.push(`${short(d.party)} sends ${d.outflow} ${short(d.instrument.id)}, not ${expected}`);
    if (!isZero(d.unlocked))
      out.push(`locked ${short(d.instrument.id)} of ${short(d.party)} is spent (${d.unlocked})`);
    if (!sameInstrument(d.instrument, want.instrument)) continue;
    // Delivered: straight to the receiver (a pre-approved or free receiver), or locked for its acceptance.
    if (d.party === want.receiver && compareDecimal(d.inflow, want.amount) === 0) delivered = true;
    if (d.party === want.party && compareDecimal(d.locked, want.amount) === 0) delivered = true;
  }
  if (!delivered)
    out.push(`neither does ${short(want.receiver)} receive ${want.amount} nor is it locked for them`);
  return out;
}

/** TransferInstruction_Accept|Reject|Withdraw: the instruction's locked funds go where the action says. */
export function instructionDifferences(f: TransactionFacts, want: InstructionAsked): string[] {
  const out = oneRootExercise(
    f,
    instructionChoice(want.action),
    want.instructionCid,
    TRANSFER_INSTRUCTION_INTERFACE,
  );
  out.push(...unrecognized(f));
  const to = want.action === 'accept' ? want.receiver : want.sender;
  for (const d of f.movements.deltas) {
    if (!isZero(d.outflow)) out.push(`${short(d.party)} sends ${d.outflow} ${short(d.instrument.id)}`);
    if (!isZero(d.locked)) out.push(`${short(d.party)} gets ${d.locked} ${short(d.instrument.id)} locked`);
    const ours = sameInstrument(d.instrument, want.instrument);
    if (!isZero(d.inflow) && (!ours || d.party !== to || compareDecimal(d.inflow, want.amount) !== 0))
      out.push(`${short(d.party)} receives ${d.inflow} ${short(d.instrument.id)}`);
    if (
      !isZero(d.unlocked) &&
      (!ours || d.party !== want.sender || compareDecimal(d.unlocked, want.amount) > 0)
    )
      out.push(`locked ${short(d.instrument.id)} of ${short(d.party)} is spent (${d.unlocked})`);
  }
  return out;
}

/** `#name:Module:Entity` or `<package id>:Module:Entity` names this template or interface. */
function names(ref: string, r: RootAction): boolean {
  const suffix = ref.slice(ref.indexOf(':') + 1);
  const byTemplate = r.templateId?.endsWith(`:${suffix}`);
  if (byTemplate) {
    if (ref.startsWith('#')) return r.template === ref;
    return r.templateId === ref;
  }
  return (
    r.interfaceId !== null && (ref.startsWith('#') ? isInterface(r.interfaceId, ref) : r.interfaceId === ref)
  );
}

/** The root actions are the commands, in order (a create-and-exercise is a create root, then its exercise). */
export function commandDifferences(f: TransactionFacts, commands: readonly Command[]): string[] {
  const out: string[] = [];
  const roots = [...f.roots];
  const next = (what: string) => {
    const r = roots.shift();
    if (!r) out.push(`${what} has no root action`);
    return r;
  };
  commands.forEach((c, i) => {
    const at = `command ${i + 1}`;
    if ('CreateCommand' in c) {
      const r = next(at);
      if (r && (r.kind !== 'create' || !names(c.CreateCommand.templateId, r)))
        out.push(
          `${at}: a create of ${short(c.CreateCommand.templateId)} was asked, the root is ${r.kind} of ${short(r.templateId ?? '?')}`,
        );
    } else if ('ExerciseCommand' in c) {
      const x = c.ExerciseCommand;
      const r = next(at);
      if (
        r &&
        (r.kind !== 'exercise' ||
          r.choice !== x.choice ||
          r.contractId !== x.contractId ||
          !names(x.templateId, r))
      )
        out.push(
          `${at}: ${x.choice} on ${short(x.contractId)} was asked, the root is ${r.kind} ${r.choice ?? ''} on ${short(r.contractId ?? '?')}`,
        );
    } else if ('CreateAndExerciseCommand' in c) {
      const x = c.CreateAndExerciseCommand;
      const created = next(at);
      if (created && (created.kind !== 'create' || !names(x.templateId, created)))
        out.push(`${at}: a create of ${short(x.templateId)} was asked first, the root is ${created.kind}`);
      const r = next(at);
      if (r && (r.kind !== 'exercise' || r.choice !== x.choice))
        out.push(`${at}: ${x.choice} was asked, the root is ${r.kind} ${r.choice ?? ''}`);
    } else {
      const x = c.ExerciseByKeyCommand;
      const r = next(at);
      if (r && (r.kind !== 'exercise' || r.choice !== x.choice || !names(x.templateId, r)))
        out.push(
          `${at}: ${x.choice} by key on ${short(x.templateId)} was asked, the root is ${r.kind} ${r.choice ?? ''}`,
        );
    }
  });
  if (roots.length > 0) out.push(`${roots.length} root actions were not asked for`);
  return out;
}
