// `quill transfer` and `quill instructions list|accept|reject|withdraw`: bad input exits 2 with one sentence before
// any request; good input becomes the request of the intents contract (path, body, ?wait, Idempotency-Key, bearer
// token), the record is printed, and a record that ends rejected or expired, or an API error, exits 1.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/run-cli.ts';
import { type FakeWallet, startFakeWallet } from './fake-wallet.ts';

const ALICE = `alice::1220${'a'.repeat(64)}`;
const BOB = `bob::1220${'b'.repeat(64)}`;
const DSO = `DSO::1220${'d'.repeat(64)}`;
const CID = `00${'ab'.repeat(33)}`;

let wallet: FakeWallet;
let env: Record<string, string>;

beforeAll(async () => {
  wallet = await startFakeWallet();
  env = { QUILL_URL: wallet.url, QUILL_TOKEN: 'tok-123' };
});
afterEach(() => {
  wallet.seen.length = 0;
});
afterAll(async () => {
  await wallet?.close();
});

const record = (status: string, extra: Record<string, unknown> = {}) => ({
  id: 'sub_AAAAAAAAAAAAAAAAAAAA',
  status,
  party: ALICE,
  error: null,
  ...extra,
});

const transfer = (...extra: string[]) => [
  'transfer',
  '--party',
  ALICE,
  '--to',
  BOB,
  '--instrument',
  `${DSO}:Amulet`,
  '--amount',
  '12.5',
  ...extra,
];

/** Exit 2, nothing on stdout, one line on stderr matching `message`, and no request made. */
async function expectBadInput(args: string[], message: RegExp) {
  const r = await runCli(args, env);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(message);
  expect(wallet.seen).toEqual([]);
}

describe('quill transfer', () => {
  it('refuses bad input with exit 2 and one sentence, before calling the wallet', async () => {
    const cases: [string[], RegExp][] = [
      [transfer().map((a) => (a === '12.5' ? '0' : a)), /--amount must be a positive decimal/],
      [transfer().map((a) => (a === '12.5' ? '-1' : a)), /--amount must be a positive decimal/],
      [transfer().map((a) => (a === '12.5' ? '1.12345678901' : a)), /at most 10 decimals/],
      [transfer().map((a) => (a === '12.5' ? '1e3' : a)), /--amount/],
      [transfer().map((a) => (a === '12.5' ? '0.0000000000' : a)), /--amount/],
      [transfer().map((a) => (a === `${DSO}:Amulet` ? DSO : a)), /--instrument must be ADMIN:ID/],
      [transfer().map((a) => (a === `${DSO}:Amulet` ? 'Amulet' : a)), /--instrument must be ADMIN:ID/],
      [transfer().map((a) => (a === `${DSO}:Amulet` ? `${DSO}:` : a)), /--instrument must be ADMIN:ID/],
      [transfer().map((a) => (a === BOB ? '' : a)), /--to must be a party id/],
      [transfer().map((a) => (a === ALICE ? ' ' : a)), /--party must be a party id/],
      [transfer('--memo', 'x'.repeat(257)), /--memo must be at most 256 characters/],
      [transfer('--execute-before', 'tomorrow'), /--execute-before must be an ISO 8601 time/],
      [transfer('--execute-before', '2026-11-26T12:00:00'), /--execute-before must be an ISO 8601 time/],
      [transfer('--execute-before', '2026-11-26T12:00Z'), /--execute-before must be an ISO 8601 time/],
      [transfer().map((a) => (a === '12.5' ? `${'9'.repeat(29)}` : a)), /--amount/],
      [transfer('--wait', '3601'), /--wait takes a number of seconds/],
      [transfer('--wait', 'soon'), /--wait takes a number of seconds/],
      [transfer('--idempotency-key', ''), /--idempotency-key must be 1-200 characters/],
      [['transfer', '--party', ALICE], /required option/],
    ];
    for (const [args, message] of cases) await expectBadInput(args, message);
  });

  it('posts the contract body with ?wait, Idempotency-Key and the token, and prints the record', async () => {
    wallet.answer({ status: 200, body: record('committed', { intent: { kind: 'transfer' } }) });
    const r = await runCli(
      transfer(
        '--memo',
        'invoice 42',
        '--execute-before',
        '2026-11-26T12:00:00Z',
        '--idempotency-key',
        'k-1',
        '--wait',
      ),
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'committed', intent: { kind: 'transfer' } });
    expect(wallet.seen).toHaveLength(1);
    const [req] = wallet.seen;
    expect(req).toMatchObject({
      method: 'POST',
      url: '/wallet/v1/transfers?wait=60',
      headers: { authorization: 'Bearer tok-123', 'idempotency-key': 'k-1' },
    });
    expect(req?.body).toEqual({
      party: ALICE,
      receiver: BOB,
      instrument: { admin: DSO, id: 'Amulet' },
      amount: '12.5',
      memo: 'invoice 42',
      executeBefore: '2026-11-26T12:00:00Z',
    });
  });

  it('sends only what was given; no ?wait without --wait', async () => {
    wallet.answer({ status: 202, body: record('queued') });
    const r = await runCli(transfer('--wait', '0'), env);
    expect(r.code, r.stderr).toBe(0);
    expect(wallet.seen[0]?.url).toBe('/wallet/v1/transfers');
    expect(wallet.seen[0]?.body).toEqual({
      party: ALICE,
      receiver: BOB,
      instrument: { admin: DSO, id: 'Amulet' },
      amount: '12.5',
    });
    expect(wallet.seen[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it('exits 1 with the code and message of an API error, or of a record that ends rejected or expired', async () => {
    wallet.answer({
      status: 422,
      body: { error: { code: 'INTENT_MISMATCH', message: 'the receiver is carol, not bob' } },
    });
    const mismatch = await runCli(transfer(), env);
    expect([mismatch.code, mismatch.stdout]).toEqual([1, '']);
    expect(mismatch.stderr).toBe('quill: INTENT_MISMATCH: the receiver is carol, not bob\n');

    wallet.answer({ status: 502, body: { error: { code: 'REGISTRY_UNAVAILABLE', message: 'try again' } } });
    expect((await runCli(transfer(), env)).stderr).toBe('quill: REGISTRY_UNAVAILABLE: try again\n');

    const error = { code: 'LOCAL_VERDICT_LOCKED_CONTRACTS', message: 'a holding is locked' };
    for (const status of ['rejected', 'expired']) {
      wallet.answer({ status: 200, body: record(status, { error }) });
      const r = await runCli(transfer('--wait', '5'), env);
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout)).toMatchObject({ status });
      expect(r.stderr).toBe(
        `quill: the transfer sub_AAAAAAAAAAAAAAAAAAAA ended ${status}: LOCAL_VERDICT_LOCKED_CONTRACTS: a holding is locked\n`,
      );
    }
  });

  it('exits 1 when the wallet cannot be reached', async () => {
    const r = await runCli(transfer(), { ...env, QUILL_URL: 'http://127.0.0.1:1' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^quill: cannot reach the wallet at http:\/\/127\.0\.0\.1:1/);
  });
});

const instruction = (direction: 'incoming' | 'outgoing', memo: string | null) => ({
  contractId: CID,
  templateId: '#splice-amulet:Splice.AmuletTransferInstruction:AmuletTransferInstruction',
  direction,
  sender: direction === 'incoming' ? BOB : ALICE,
  receiver: direction === 'incoming' ? ALICE : BOB,
  amount: '7.5',
  instrument: { admin: DSO, id: 'Amulet' },
  requestedAt: '2026-11-25T10:00:00Z',
  executeBefore: '2026-11-26T10:00:00Z',
  expired: false,
  memo,
  status: 'TransferPendingReceiverAcceptance',
  originalInstructionCid: null,
  updateId: 'upd-1',
  offset: 12,
});

describe('quill instructions', () => {
  it('lists as a table (counterparty per direction) or JSON, passing --direction', async () => {
    const items = [instruction('incoming', 'rent\nNovember'), instruction('outgoing', null)];
    wallet.answer({ status: 200, body: { items } });
    const r = await runCli(['instructions', 'list', '--party', ALICE], env);
    expect(r.code, r.stderr).toBe(0);
    expect(wallet.seen[0]).toMatchObject({
      method: 'GET',
      url: `/wallet/v1/parties/${encodeURIComponent(ALICE)}/transfer-instructions`,
      headers: { authorization: 'Bearer tok-123' },
    });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^CONTRACT ID\s+DIRECTION\s+COUNTERPARTY\s+AMOUNT\s+INSTRUMENT\s+MEMO\s+EXECUTE BEFORE$/,
    );
    expect(lines[1]?.split(/\s{2,}/)).toEqual([
      CID,
      'incoming',
      BOB,
      '7.5',
      'Amulet',
      'rent November',
      '2026-11-26T10:00:00Z',
    ]);
    expect(lines[2]?.split(/\s{2,}/)).toEqual([
      CID,
      'outgoing',
      BOB,
      '7.5',
      'Amulet',
      '2026-11-26T10:00:00Z',
    ]);

    const json = await runCli(
      ['instructions', 'list', '--party', ALICE, '--direction', 'outgoing', '--json'],
      env,
    );
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ items });
    expect(wallet.seen[1]?.url).toMatch(/\?direction=outgoing$/);

    wallet.answer({ status: 200, body: { items: [] } });
    expect((await runCli(['instructions', 'list', '--party', ALICE], env)).stdout).toBe(
      'no pending transfer instructions\n',
    );
  });

  it('accept, reject and withdraw post to the one route, with --party only when given', async () => {
    wallet.answer((req) => ({
      status: 202,
      body: record('queued', {
        intent: { kind: 'instruction', action: req.url.split('?')[0]?.split('/').pop() },
      }),
    }));
    for (const action of ['accept', 'reject', 'withdraw']) {
      const r = await runCli(['instructions', action, CID], env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ intent: { action } });
    }
    expect(wallet.seen.map((s) => [s.method, s.url, s.body])).toEqual(
      ['accept', 'reject', 'withdraw'].map((a) => [
        'POST',
        `/wallet/v1/transfer-instructions/${CID}/${a}`,
        {},
      ]),
    );
    wallet.seen.length = 0;
    const r = await runCli(
      ['instructions', 'accept', CID, '--party', ALICE, '--wait', '15', '--idempotency-key', 'acc-1'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(wallet.seen[0]).toMatchObject({
      url: `/wallet/v1/transfer-instructions/${CID}/accept?wait=15`,
      headers: { 'idempotency-key': 'acc-1' },
      body: { party: ALICE },
    });
  });

  it('exits 1 on NOT_FOUND or a rejected record, 2 on bad input', async () => {
    wallet.answer({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'no such pending instruction' } },
    });
    const missing = await runCli(['instructions', 'reject', CID], env);
    expect([missing.code, missing.stderr]).toEqual([1, 'quill: NOT_FOUND: no such pending instruction\n']);
    wallet.answer({ status: 200, body: record('rejected', { error: { code: 'X', message: 'y' } }) });
    const rejected = await runCli(['instructions', 'withdraw', CID, '--wait'], env);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(/^quill: the withdraw sub_\S+ ended rejected: X: y\n$/);
    wallet.seen.length = 0;
    await expectBadInput(['instructions', 'accept', CID, '--wait', '-3'], /--wait takes a number/);
    await expectBadInput(['instructions', 'accept', CID, '--party', ''], /--party must be a party id/);
    await expectBadInput(['instructions', 'accept', ''], /contract id must not be empty/);
    await expectBadInput(['instructions', 'list', '--party', ALICE, '--direction', 'sideways'], /direction/);
    await expectBadInput(['instructions', 'list'], /required option/);
    await expectBadInput(['instructions', 'cancel', CID], /unknown command|error/);
  });
});
