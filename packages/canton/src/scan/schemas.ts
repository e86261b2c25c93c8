/**
 * `POST /v0/activities` of the scan API, with our interface's snake_case `coin` names (the real spec says
 * `amulet`: `coin_owner` = `amulet_owner`, `coin_amount` = `amulet_amount`, `input_coin_amount` =
 * `input_amulet_amount`, legacy `coin_price` = `amulet_price`). Reference: scan-activities.md.
 * - Amounts are decimal strings with exactly 10 fractional digits (never JS numbers; see `decimal.ts`).
 * - Optional fields arrive as explicit `null`; both `null` and missing are accepted.
 * - The `transferInstruction*` keys really are camelCase.
 * - Schema names follow the scan spec components, with `AmuletAmount` → `CoinAmount`.
 */
import { z } from 'zod';

/** A Daml Decimal as the server prints it: `-?\d{1,28}\.\d{10}`. */
export const Decimal10 = z
  .string()
  .regex(/^-?\d{1,28}\.\d{10}$/, 'expected a decimal string with exactly 10 fractional digits');
export type Decimal10 = z.infer<typeof Decimal10>;

const opt = <T extends z.ZodType>(schema: T) => schema.nullish();
const Int64 = z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);
const DateTime = z.iso.datetime({ offset: true, message: 'expected an RFC 3339 date-time' });

/** Request body. `page_size` must be 1..1000 (the server answers 400 otherwise, see `checkListActivityRequest`). */
export const ListActivityRequest = z.object({
  page_size: z
    .union([
      Int64,
      z
        .string()
        .regex(/^-?\d{1,16}$/)
        .transform(Number),
    ])
    .pipe(Int64),
  /** Exclusive cursor: the last `event_id` of the previous page. `""` or null = from the newest. */
  begin_after_id: opt(z.string()),
});
export type ListActivityRequest = z.infer<typeof ListActivityRequest>;

export const CoinAmount = z.object({ coin_owner: z.string(), coin_amount: Decimal10 });
export type CoinAmount = z.infer<typeof CoinAmount>;

export const SenderAmount = z.object({
  party: z.string(),
  input_coin_amount: opt(Decimal10),
  input_app_reward_amount: opt(Decimal10),
  /** Already includes `input_validator_faucet_amount`: never add both. */
  input_validator_reward_amount: opt(Decimal10),
  input_sv_reward_amount: opt(Decimal10),
  input_validator_faucet_amount: opt(Decimal10),
  sender_change_fee: Decimal10,
  sender_change_amount: Decimal10,
  sender_fee: Decimal10,
  holding_fees: Decimal10,
});
export type SenderAmount = z.infer<typeof SenderAmount>;

export const ReceiverAmount = z.object({ party: z.string(), amount: Decimal10, receiver_fee: Decimal10 });
export type ReceiverAmount = z.infer<typeof ReceiverAmount>;

export const BalanceChange = z.object({
  party: z.string(),
  change_to_initial_amount_as_of_round_zero: Decimal10,
  change_to_holding_fees_rate: Decimal10,
});
export type BalanceChange = z.infer<typeof BalanceChange>;

export const TransferKind = z.enum([
  'create_transfer_instruction',
  'transfer_instruction_accept',
  'preapproval_send',
]);
export type TransferKind = z.infer<typeof TransferKind>;

export const Transfer = z.object({
  sender: SenderAmount,
  receivers: z.array(ReceiverAmount),
  /** Always `[]` on servers after Jan 2026. */
  balance_changes: z.array(BalanceChange),
  description: opt(z.string()),
  transferInstructionReceiver: opt(z.string()),
  transferInstructionAmount: opt(Decimal10),
  transferInstructionCid: opt(z.string()),
  /** null = a plain transfer. */
  transfer_kind: opt(TransferKind),
  /** Legacy (removed Feb 2026). */
  provider: opt(z.string()),
});
export type Transfer = z.infer<typeof Transfer>;

export const AbortTransferInstruction = z.object({
  abort_kind: z.enum(['withdraw', 'reject']),
  transfer_instruction_cid: z.string(),
});
export type AbortTransferInstruction = z.infer<typeof AbortTransferInstruction>;

export const ActivityType = z.enum(['transfer', 'mint', 'devnet_tap', 'abort_transfer_instruction']);
export type ActivityType = z.infer<typeof ActivityType>;

/** Which member carries the payload of each activity type (note `devnet_tap` → `tap`). */
export const ACTIVITY_PAYLOAD = {
  transfer: 'transfer',
  mint: 'mint',
  devnet_tap: 'tap',
  abort_transfer_instruction: 'abort_transfer_instruction',
} as const satisfies Record<ActivityType, string>;

export const ListActivityResponseItem = z
  .object({
    activity_type: ActivityType,
    /** `#<updateId>:<nodeId>`; an opaque cursor, not ordered. */
    event_id: z.string().min(1),
    /** Participant-specific legacy hex offset; not comparable across SVs. */
    offset: opt(z.string()),
    date: DateTime,
    domain_id: z.string(),
    /** null for mint and abort; 0 for some token-standard transfers. */
    round: opt(Int64),
    transfer: opt(Transfer),
    mint: opt(CoinAmount),
    tap: opt(CoinAmount),
    abort_transfer_instruction: opt(AbortTransferInstruction),
    /** Legacy (removed Feb 2026). */
    coin_price: opt(Decimal10),
  })
  .superRefine((item, ctx) => {
    const member = ACTIVITY_PAYLOAD[item.activity_type];
    if (item[member] == null) {
      ctx.addIssue({
        code: 'custom',
        path: [member],
        message: `activity_type ${item.activity_type} requires ${member}`,
      });
    }
  });
export type ListActivityResponseItem = z.infer<typeof ListActivityResponseItem>;

/** Newest first. */
export const ListActivityResponse = z.object({ activities: z.array(ListActivityResponseItem) });
export type ListActivityResponse = z.infer<typeof ListActivityResponse>;

/** The scan's JSON error body (common-external `ErrorResponse`). */
export const ErrorResponse = z.object({ error: z.string() });
export type ErrorResponse = z.infer<typeof ErrorResponse>;

/** The server's page-size rule, with its exact messages (for the client check and a test double). */
export function checkListActivityRequest(req: ListActivityRequest): string | undefined {
  if (req.page_size < 1) return 'Limit must be at least 1.';
  if (req.page_size > 1000) return `Exceeded limit maximum (${req.page_size} > 1000).`;
  return undefined;
}
