// Intents: Quill prepares what the caller asks (a token-standard transfer, an answer to a pending transfer
// instruction, raw Daml commands) through the participant, then runs the same accept path as a prepared
// transaction, where the transaction must first pass a check that it does exactly what was asked (verify.ts).
// The participant and the registries are inputs, not trusted: a mismatch is a 422 and nothing is signed.
import { createHash, randomUUID } from 'node:crypto';
import { echo } from '@quill/canton/errors';
import {
  type Command,
  type DisclosedContract,
  type JsPrepareSubmissionRequest,
  type JsPrepareSubmissionResponse,
  LedgerError,
  type MinLedgerTime,
} from '@quill/canton/ledger';
import {
  type InstrumentId,
  META_KEYS,
  TRANSFER_FACTORY_INTERFACE,
  TRANSFER_INSTRUCTION_INTERFACE,
} from '@quill/canton/token';
import type { AuditLog } from '../audit/index.ts';
import { idempotencyScope, type Principal } from '../auth/index.ts';
import type { HistoryIndex } from '../history/index.ts';
import { canonicalJson } from '../json.ts';
import {
  type AcceptDeps,
  type AcceptResult,
  acceptSubmission,
  expireIfOverdue,
  type Intent,
  type IntentCheck,
  type SubmissionRecord,
  SubmissionRefused,
  type SubmissionRequest,
} from '../submissions/index.ts';
import {
  type ChoiceContext,
  disclosedForPrepare,
  type InstructionAction,
  instructionChoice,
  type RegistryClient,
} from './registry.ts';
import { HoldingReservations } from './reserve.ts';
import { type SelectOptions, selectHoldings } from './select.ts';
import {
  commandDifferences,
  instructionDifferences,
  refuseMismatch,
  type TransferAsked,
  transferDifferences,
} from './verify.ts';

/** The participant's prepare (the ledger client's, over HTTP). */
export interface PrepareLedger {
  prepare(body: JsPrepareSubmissionRequest): Promise<JsPrepareSubmissionResponse>;
}

export interface IntentDeps {
  accept: AcceptDeps;
  ledger: PrepareLedger;
  registries: RegistryClient;
  history: Pick<HistoryIndex, 'holdings' | 'instructions'>;
  audit: AuditLog;
  /** Holdings picked by transfers, and command ids being prepared. */
  reservations: HoldingReservations;
  /** The wallet's parties (to find an instruction when the caller names no party). */
  walletParties?: () => Promise<string[]>;
  ttlSeconds: number;
  select: SelectOptions;
  now?: () => number;
}

export interface TransferIntent {
  party: string;
  receiver: string;
  instrument: InstrumentId;
  amount: string;
  memo?: string | undefined;
  executeBefore?: string | undefined;
  userId?: string | undefined;
}

export interface InstructionIntent {
  contractId: string;
  action: InstructionAction;
  party?: string | undefined;
  userId?: string | undefined;
}

export interface CommandsIntent {
  party: string;
  commands: Command[];
  disclosedContracts?: DisclosedContract[] | undefined;
  synchronizerId?: string | undefined;
  userId?: string | undefined;
  minLedgerTime?: MinLedgerTime | undefined;
}

/** After its record can no longer commit, how long a holding stays reserved: the index sees it spent by then. */
const INDEX_MARGIN_MS = 10 * 60_000;

/** Until when a record's holdings stay reserved. */
function reservedUntil(rec: SubmissionRecord, now: number): number {
  const end = rec.canCommitUntil ?? rec.maxRecordTime;
  return (end ? Date.parse(end) : now + 86_400_000) + INDEX_MARGIN_MS;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class IntentService {
  constructor(private readonly d: IntentDeps) {}

  private now(): number {
    return (this.d.now ?? Date.now)();
  }

  async transfer(who: Principal, body: TransferIntent, key?: string): Promise<AcceptResult> {
    this.mayActFor(who, body.party);
    const fingerprint = `transfer:${sha256(canonicalJson(body))}`;
    return this.once(who, fingerprint, key, (commandId) =>
      this.prepareTransfer(who, body, { fingerprint, commandId }, key),
    );
  }

  async instruction(who: Principal, body: InstructionIntent, key?: string): Promise<AcceptResult> {
    const fingerprint = `instruction:${sha256(canonicalJson(body))}`;
    return this.once(who, fingerprint, key, (commandId) =>
      this.prepareInstruction(who, body, { fingerprint, commandId }, key),
    );
  }

  async commands(who: Principal, body: CommandsIntent, key?: string): Promise<AcceptResult> {
    this.mayActFor(who, body.party);
    const fingerprint = `commands:${sha256(canonicalJson(body))}`;
    return this.once(who, fingerprint, key, (commandId) =>
      this.prepareCommands(who, body, fingerprint, commandId, key),
    );
  }

  private async prepareCommands(
    who: Principal,
    body: CommandsIntent,
    fingerprint: string,
    commandId: string,
    key?: string,
  ): Promise<AcceptResult> {
    await this.heldParty(body.party);
    const prepared = await this.prepare({
      userId: body.userId ?? this.d.accept.defaultUserId,
      commandId,
      commands: body.commands,
      actAs: [body.party],
      readAs: [],
      disclosedContracts: body.disclosedContracts ?? [],
      synchronizerId: body.synchronizerId ?? '',
      packageIdSelectionPreference: [],
      ...(body.minLedgerTime ? { minLedgerTime: body.minLedgerTime } : {}),
      maxRecordTime: new Date(this.now() + this.d.ttlSeconds * 1000).toISOString(),
    });
    return this.accept(
      who,
      prepared,
      body.party,
      body.userId,
      key,
      {
        intent: { kind: 'commands', commandCount: body.commands.length },
        fingerprint,
        verify: (f) => refuseMismatch(commandDifferences(f, body.commands)),
      },
      commandId,
    );
  }

  /**
   * Prepares an expired intent's record again, as a new record (`reprepareOf`), audited. Asking twice gives
   * the same new record: its command id is derived from the old record's id.
   */
  async reprepare(who: Principal, held: SubmissionRecord): Promise<AcceptResult> {
    // A held record past its approval deadline expires when looked at.
    const old = await expireIfOverdue(this.d.accept.store, held, this.now());
    const intent = old.intent;
    if (!intent || intent.kind === 'commands' || old.status !== 'expired') {
      throw new SubmissionRefused(
        409,
        'NOT_REPREPARABLE',
        intent?.kind === 'commands'
          ? 'raw commands are not kept: send them to POST /wallet/v1/commands again'
          : `only an expired transfer or instruction intent can be prepared again (this one is ${old.status}${intent ? '' : ', not made from an intent'})`,
      );
    }
    const commandId = `quill-reprepare-${sha256(old.id).slice(0, 40)}`;
    const run = () => this.reprepareOnce(who, old, intent, commandId);
    return this.d.reservations.exclusive(commandId, run);
  }

  private async reprepareOnce(
    who: Principal,
    old: SubmissionRecord,
    intent: Exclude<Intent, { kind: 'commands' }>,
    commandId: string,
  ): Promise<AcceptResult> {
    const existing = await this.d.accept.store.byCommandId(commandId);
    if (existing) return { record: existing, created: false };
    const o = { fingerprint: `reprepare:${old.id}`, commandId, reprepareOf: old.id };
    const result =
      intent.kind === 'transfer'
        ? await this.prepareTransfer(
            who,
            {
              party: old.party,
              receiver: intent.receiver,
              instrument: intent.instrument,
              amount: intent.amount,
              ...(intent.memo !== null ? { memo: intent.memo } : {}),
              // The deadline asked, while it is ahead; past it, a new default one.
              ...(Date.parse(intent.executeBefore) > this.now() + 60_000
                ? { executeBefore: intent.executeBefore }
                : {}),
              userId: old.userId,
            },
            o,
          )
        : await this.prepareInstruction(
            who,
            {
              contractId: intent.instructionCid,
              action: intent.action,
              party: old.party,
              userId: old.userId,
            },
            o,
          );
    if (result.created) {
      await this.d.audit.append({
        kind: 'intent.reprepared',
        at: new Date(this.now()).toISOString(),
        actor: who.subject,
        party: old.party,
        submission: old.id,
        newSubmission: result.record.id,
      });
    }
    return result;
  }

  private async prepareTransfer(
    who: Principal,
    body: TransferIntent,
    o: { fingerprint: string; commandId: string; reprepareOf?: string },
    key?: string,
  ): Promise<AcceptResult> {
    const { party, instrument, amount } = body;
    if (!this.d.registries.knows(instrument.admin)) {
      throw new SubmissionRefused(
        422,
        'UNKNOWN_REGISTRY',
        `no registry is configured for instruments of admin ${echo(instrument.admin)} (TOKEN_REGISTRY_URLS)`,
      );
    }
    await this.heldParty(party);
    const now = this.now();
    const executeBefore = body.executeBefore ?? new Date(now + 86_400_000).toISOString();
    if (Date.parse(executeBefore) <= now)
      throw new SubmissionRefused(400, 'INVALID_REQUEST', 'executeBefore must be in the future');
    const owner = HoldingReservations.pending(randomUUID());
    const inputs = await this.pickHoldings(party, { instrument, amount, now }, owner);
    let result: AcceptResult | undefined;
    try {
      result = await this.transferWith(who, body, o, key, { inputs, now, executeBefore });
      return result;
    } finally {
      const rec = result?.created ? result.record : undefined;
      // Its record holds them until it can no longer commit (and the index has seen what it spent); a refused
      // or replayed request frees them.
      if (rec) await this.d.reservations.handOver(inputs, owner, rec.id, reservedUntil(rec, this.now()));
      else await this.d.reservations.release(inputs, owner);
    }
  }

  /** Holdings for the transfer, reserved against every other intent of the party. */
  private async pickHoldings(
    party: string,
    q: { instrument: InstrumentId; amount: string; now: number },
    owner: string,
  ): Promise<string[]> {
    const holdings = await this.d.history.holdings(party);
    const spent = new Set<string>();
    // Each round leaves out what other intents hold: it ends once a pick is all ours, or short (a 422).
    for (;;) {
      const inputs = selectHoldings(holdings, { ...q, spent }, this.d.select);
      const taken = await this.d.reservations.reserve(inputs, owner);
      if (taken.length === 0) return inputs;
      await this.d.reservations.release(inputs, owner);
      for (const { contractId, holder } of taken) {
        const id = HoldingReservations.recordOf(holder);
        const found = id ? await this.d.accept.store.getRecord(id) : undefined;
        const rec = found && (await expireIfOverdue(this.d.accept.store, found, this.now()));
        // A record that ended without committing spent nothing: its reservation is stale, the holding free.
        if (rec && (rec.status === 'rejected' || rec.status === 'expired'))
          await this.d.reservations.release([contractId], holder);
        else spent.add(contractId);
      }
    }
  }

  private async transferWith(
    who: Principal,
    body: TransferIntent,
    o: { fingerprint: string; commandId: string; reprepareOf?: string },
    key: string | undefined,
    picked: { inputs: string[]; now: number; executeBefore: string },
  ): Promise<AcceptResult> {
    const { party, receiver, instrument, amount } = body;
    const { inputs, now, executeBefore } = picked;
    const memo = body.memo ?? null;
    const args = {
      expectedAdmin: instrument.admin,
      transfer: {
        sender: party,
        receiver,
        amount,
        instrumentId: instrument,
        requestedAt: new Date(now).toISOString(),
        executeBefore,
        inputHoldingCids: inputs,
        meta: { values: memo !== null ? { [META_KEYS.reason]: memo } : {} },
      },
      extraArgs: { context: { values: {} } as unknown, meta: { values: {} } },
    };
    const factory = await this.d.registries.transferFactory(instrument.admin, args);
    args.extraArgs.context = factory.choiceContext.choiceContextData;
    const asked: TransferAsked = {
      party,
      receiver,
      instrument,
      amount,
      memo,
      executeBefore,
      factoryId: factory.factoryId,
    };
    const intent: Intent = {
      kind: 'transfer',
      receiver,
      instrument,
      amount,
      memo,
      executeBefore,
      inputHoldingCids: inputs,
      factoryId: factory.factoryId,
      transferKind: factory.transferKind,
    };
    return this.exerciseForRegistry(
      who,
      { party, userId: body.userId, key, commandId: o.commandId, until: Date.parse(executeBefore) },
      {
        templateId: TRANSFER_FACTORY_INTERFACE,
        contractId: factory.factoryId,
        choice: 'TransferFactory_Transfer',
        choiceArgument: args,
      },
      factory.choiceContext,
      {
        intent,
        fingerprint: o.fingerprint,
        verify: (f) => refuseMismatch(transferDifferences(f, asked)),
        ...(o.reprepareOf ? { reprepareOf: o.reprepareOf } : {}),
      },
    );
  }

  private async prepareInstruction(
    who: Principal,
    body: InstructionIntent,
    o: { fingerprint: string; commandId: string; reprepareOf?: string },
    key?: string,
  ): Promise<AcceptResult> {
    const ins = await this.findInstruction(who, body);
    // The receiver answers an offer (accept, reject); the sender takes it back (withdraw).
    const party = body.action === 'withdraw' ? ins.sender : ins.receiver;
    if (body.party !== undefined && body.party !== party) {
      throw new SubmissionRefused(
        422,
        'PARTY_MISMATCH',
        `only the ${body.action === 'withdraw' ? 'sender' : 'receiver'} of the instruction may ${body.action} it`,
      );
    }
    this.mayActFor(who, party);
    await this.heldParty(party);
    const context = await this.d.registries.instructionContext(
      ins.instrument.admin,
      ins.contractId,
      body.action,
    );
    const intent = {
      kind: 'instruction' as const,
      action: body.action,
      instructionCid: ins.contractId,
      sender: ins.sender,
      receiver: ins.receiver,
      amount: ins.amount,
      instrument: ins.instrument,
    };
    const asked = { ...intent, party };
    return this.exerciseForRegistry(
      who,
      { party, userId: body.userId, key, commandId: o.commandId, until: Date.parse(ins.executeBefore) },
      {
        templateId: TRANSFER_INSTRUCTION_INTERFACE,
        contractId: ins.contractId,
        choice: instructionChoice(body.action),
        choiceArgument: { extraArgs: { context: context.choiceContextData, meta: { values: {} } } },
      },
      context,
      {
        intent,
        fingerprint: o.fingerprint,
        verify: (f) => refuseMismatch(instructionDifferences(f, asked)),
        ...(o.reprepareOf ? { reprepareOf: o.reprepareOf } : {}),
      },
    );
  }

  /**
   * One choice on a registry's contract, prepared with the registry's disclosed contracts on their synchronizer,
   * valid until `until` (or INTENT_TTL_SECONDS, if sooner), then accepted as any prepared transaction.
   */
  private async exerciseForRegistry(
    who: Principal,
    x: {
      party: string;
      userId: string | undefined;
      key: string | undefined;
      commandId: string;
      until: number;
    },
    exercise: { templateId: string; contractId: string; choice: string; choiceArgument: unknown },
    context: ChoiceContext,
    check: IntentCheck,
  ): Promise<AcceptResult> {
    const disclosed = disclosedForPrepare(context);
    const prepared = await this.prepare({
      userId: x.userId ?? this.d.accept.defaultUserId,
      commandId: x.commandId,
      commands: [{ ExerciseCommand: exercise }] as Command[],
      actAs: [x.party],
      readAs: [],
      disclosedContracts: disclosed,
      synchronizerId: disclosed[0]?.synchronizerId ?? '',
      packageIdSelectionPreference: [],
      maxRecordTime: new Date(Math.min(x.until, this.now() + this.d.ttlSeconds * 1000)).toISOString(),
    });
    return this.accept(who, prepared, x.party, x.userId, x.key, check, x.commandId);
  }

  /** The pending instruction from the wallet's index, seen from the caller's party or the wallet's parties. */
  private async findInstruction(who: Principal, body: InstructionIntent) {
    const parties =
      who.party !== undefined
        ? [who.party]
        : body.party !== undefined
          ? [body.party]
          : ((await this.d.walletParties?.()) ?? []);
    for (const p of parties) {
      const found = (await this.d.history.instructions(p)).find((i) => i.contractId === body.contractId);
      if (found) return found;
    }
    throw new SubmissionRefused(
      404,
      'NOT_FOUND',
      `no pending transfer instruction ${echo(body.contractId)} of ${who.party !== undefined || body.party !== undefined ? 'that party' : "the wallet's parties"} (the index follows the ledger shortly after it commits)`,
    );
  }

  private async accept(
    who: Principal,
    prepared: JsPrepareSubmissionResponse,
    party: string,
    userId: string | undefined,
    key: string | undefined,
    check: IntentCheck,
    commandId: string,
  ): Promise<AcceptResult> {
    const scheme = prepared.hashingSchemeVersion;
    if (scheme !== 'HASHING_SCHEME_VERSION_V2' && scheme !== 'HASHING_SCHEME_VERSION_V3')
      throw new SubmissionRefused(
        502,
        'PREPARE_FAILED',
        `the participant prepared with hashing scheme ${scheme}`,
      );
    const req: SubmissionRequest = {
      preparedTransaction: prepared.preparedTransaction,
      preparedTransactionHash: prepared.preparedTransactionHash,
      hashingSchemeVersion: scheme,
      party,
      ...(userId !== undefined ? { userId } : {}),
      ...(prepared.costEstimation ? { costEstimation: prepared.costEstimation } : {}),
    };
    try {
      return await acceptSubmission(this.d.accept, req, who, key, check);
    } catch (err) {
      // The same key from two requests at once: both prepared under its command id, one record holds it.
      if (err instanceof SubmissionRefused && err.code === 'COMMAND_ID_IN_USE') {
        const holder = await this.d.accept.store.byCommandId(commandId);
        if (holder && holder.party === party) return { record: holder, created: false };
      }
      throw err;
    }
  }

  /**
   * The record an Idempotency-Key already names, or `prepare` under the key's command id: requests with one key
   * take turns (the second finds the first's record), so a key prepares and signs once.
   */
  private async once(
    who: Principal,
    fingerprint: string,
    key: string | undefined,
    prepare: (commandId: string) => Promise<AcceptResult>,
  ): Promise<AcceptResult> {
    const commandId = this.commandId(who, key);
    const early = await this.replayed(who, fingerprint, key);
    if (early) return early;
    if (key === undefined) return prepare(commandId);
    return this.d.reservations.exclusive(commandId, async () => {
      return (await this.replayed(who, fingerprint, key)) ?? prepare(commandId);
    });
  }

  /** With an Idempotency-Key: the record it already names, or a refusal when it named another request. */
  private async replayed(
    who: Principal,
    fingerprint: string,
    key?: string,
  ): Promise<AcceptResult | undefined> {
    if (key === undefined) return undefined;
    const store = this.d.accept.store;
    const seen = await store.idempotency(idempotencyScope(who), key);
    if (!seen) {
      const holder = await store.byCommandId(this.commandId(who, key));
      return holder ? { record: holder, created: false } : undefined;
    }
    if (seen.fingerprint !== fingerprint) {
      throw new SubmissionRefused(
        422,
        'IDEMPOTENCY_KEY_REUSED',
        'this Idempotency-Key was used with a different request body',
      );
    }
    const rec = await store.getRecord(seen.id);
    return rec ? { record: rec, created: false } : undefined;
  }

  /**
   * One command id per Idempotency-Key (and caller): two requests racing with one key prepare the same command,
   * which the store and the ledger's deduplication let happen once. Without a key, each request is new.
   */
  private commandId(who: Principal, key?: string): string {
    return key === undefined
      ? `quill-intent-${randomUUID()}`
      : `quill-intent-${sha256(`${idempotencyScope(who)}\u0000${key}`).slice(0, 40)}`;
  }

  private mayActFor(who: Principal, party: string): void {
    if (who.party !== undefined && who.party !== party)
      throw new SubmissionRefused(403, 'PARTY_NOT_ALLOWED', 'this token may not act for that party');
  }

  private async heldParty(party: string): Promise<void> {
    if (!(await this.d.accept.ports.partyKey(party)))
      throw new SubmissionRefused(422, 'UNKNOWN_PARTY', `party ${echo(party)} is not held by this wallet`);
  }

  private async prepare(body: JsPrepareSubmissionRequest): Promise<JsPrepareSubmissionResponse> {
    try {
      return await this.d.ledger.prepare({ ...body, hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2' });
    } catch (err) {
      if (err instanceof LedgerError && err.status !== undefined && err.status < 500) {
        throw new SubmissionRefused(
          422,
          'PREPARE_FAILED',
          `the participant did not prepare it: ${err.code}: ${(err.message.split('\n')[0] ?? '').slice(0, 500)}`,
        );
      }
      throw new SubmissionRefused(503, 'UNAVAILABLE', 'the participant did not answer the prepare: retry');
    }
  }
}
