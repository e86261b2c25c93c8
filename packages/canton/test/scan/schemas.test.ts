/**
 * Activity feed schemas: every `.coin.json` vector parses, conforms to the real scan spec after the
 * coin→amulet renaming, the fee-era arithmetic checks out exactly, and invalid inputs are refused with a
 * path and a message.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkListActivityRequest,
  Decimal10,
  ErrorResponse,
  formatDecimal10,
  ListActivityRequest,
  ListActivityResponse,
  ListActivityResponseItem,
  parseDecimal10,
} from '../../src/scan/index.ts';
import { scanSpec } from '../support/openapi.ts';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'scan');
const vectors = readdirSync(DIR).filter((f) => f.endsWith('.coin.json'));
const load = (file: string): unknown => JSON.parse(readFileSync(join(DIR, file), 'utf8'));

describe('vectors', () => {
  it('there are vectors to check', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(2);
  });

  for (const file of vectors) {
    it(`${file} parses and conforms to the scan spec (coin renamed to amulet)`, () => {
      const body = load(file);
      const parsed = ListActivityResponse.parse(body);
      expect(parsed.activities.length).toBeGreaterThan(0);
      scanSpec().expectValidResponse('/v0/activities', 'post', 200, body);
    });
  }

  it('without the renaming the spec refuses our coin names (the rule is applied, not ignored)', () => {
    const body = load('synthesized-activities-page-zero-fee.coin.json');
    expect(scanSpec({ renameCoin: false }).validateResponse('/v0/activities', 'post', 200, body).valid).toBe(
      false,
    );
  });

  it('covers every activity type, with the null rounds of mint and abort', () => {
    const page = ListActivityResponse.parse(load('synthesized-activities-page-zero-fee.coin.json'));
    const types = new Set(page.activities.map((a) => a.activity_type));
    expect([...types].sort()).toEqual(['abort_transfer_instruction', 'devnet_tap', 'mint', 'transfer']);
    for (const a of page.activities) {
      if (a.activity_type === 'mint' || a.activity_type === 'abort_transfer_instruction')
        expect(a.round).toBeNull();
    }
  });

  it('fee era: inputs − holding fees = Σ receivers + sender fee + change fee + change, exactly', () => {
    const page = ListActivityResponse.parse(load('synthesized-activity-fee-era.coin.json'));
    const t = page.activities[0]!.transfer!;
    const d = (v: string | null | undefined) => parseDecimal10(v ?? '0.0000000000');
    const inputs =
      d(t.sender.input_coin_amount) +
      d(t.sender.input_app_reward_amount) +
      d(t.sender.input_validator_reward_amount) +
      d(t.sender.input_sv_reward_amount) -
      d(t.sender.holding_fees);
    const outputs =
      t.receivers.reduce((sum, r) => sum + d(r.amount), 0n) +
      d(t.sender.sender_fee) +
      d(t.sender.sender_change_fee) +
      d(t.sender.sender_change_amount);
    expect(formatDecimal10(inputs)).toBe(formatDecimal10(outputs));
  });

  it('the error vectors with JSON bodies are ErrorResponse bodies', () => {
    const errors = load('synthesized-error-responses.json') as Record<
      string,
      { content_type?: string; body?: unknown }
    >;
    const jsonBodies = Object.values(errors).filter((e) => e.content_type === 'application/json');
    expect(jsonBodies.length).toBeGreaterThanOrEqual(4);
    for (const e of jsonBodies) expect(ErrorResponse.parse(e.body).error.length).toBeGreaterThan(0);
  });
});

describe('request', () => {
  it('page_size 1..1000, with the server messages outside', () => {
    expect(checkListActivityRequest(ListActivityRequest.parse({ page_size: 10 }))).toBeUndefined();
    expect(checkListActivityRequest(ListActivityRequest.parse({ page_size: 0 }))).toBe(
      'Limit must be at least 1.',
    );
    expect(checkListActivityRequest(ListActivityRequest.parse({ page_size: 1001 }))).toBe(
      'Exceeded limit maximum (1001 > 1000).',
    );
    expect(ListActivityRequest.parse({ page_size: '5', begin_after_id: null, extra: 1 })).toEqual({
      page_size: 5,
      begin_after_id: null,
    });
    scanSpec().expectValidRequest('/v0/activities', 'post', { page_size: 10, begin_after_id: '#1220ab:1' });
  });
});

describe('properties', () => {
  it('decimals round-trip through scaled bigints', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }), (units) => {
        const text = formatDecimal10(units);
        expect(Decimal10.safeParse(text).success).toBe(true);
        expect(parseDecimal10(text)).toBe(units);
      }),
    );
  });

  it('amount strings that are not 10-digit decimals are refused with a path', () => {
    const page = load('synthesized-activity-fee-era.coin.json') as {
      activities: Array<Record<string, unknown>>;
    };
    const bad = fc.oneof(
      fc.double({ noNaN: true }).map((n) => n as unknown),
      fc.constantFrom('1', '1.0', '1.00000000000', '1e3', '+1.0000000000', ' 1.0000000000', '1,0000000000'),
    );
    const fields = [
      'sender_fee',
      'sender_change_fee',
      'holding_fees',
      'sender_change_amount',
      'input_coin_amount',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...fields), bad, (field, value) => {
        const item = structuredClone(page.activities[0]!) as {
          transfer: { sender: Record<string, unknown> };
        };
        item.transfer.sender[field] = value;
        const r = ListActivityResponseItem.safeParse(item);
        expect(r.success).toBe(false);
        expect(
          r.error?.issues.some((i) => i.path.join('.') === `transfer.sender.${field}` && i.message),
        ).toBe(true);
      }),
    );
  });

  it('an activity without the payload its type names is refused at that member', () => {
    const page = load('synthesized-activities-page-zero-fee.coin.json') as {
      activities: Array<Record<string, unknown>>;
    };
    fc.assert(
      fc.property(fc.constantFrom(...page.activities), (activity) => {
        const member =
          { devnet_tap: 'tap' }[activity.activity_type as string] ?? (activity.activity_type as string);
        const broken = { ...activity, [member]: null };
        const r = ListActivityResponseItem.safeParse(broken);
        expect(r.success).toBe(false);
        expect(r.error?.issues[0]?.path).toEqual([member]);
      }),
    );
  });

  it('random non-objects and wrong types at the top level are refused with a message', () => {
    fc.assert(
      fc.property(fc.anything(), (v) => {
        fc.pre(
          !(typeof v === 'object' && v !== null && Array.isArray((v as { activities?: unknown }).activities)),
        );
        const r = ListActivityResponse.safeParse(v);
        expect(r.success).toBe(false);
        expect(r.error?.issues[0]?.message).toBeTruthy();
      }),
    );
  });
});
