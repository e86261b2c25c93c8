// Issue 26, bug 1: executeAndWaitForTransaction reads the committed transaction with the caller's
// transactionFormat only after the commit (CommandServiceImpl.fetchTransactionFromCompletion), so a format the
// participant cannot read with is refused for a transaction that committed. Quill refuses at accept what the
// participant's format validator refuses (package-id form; package names the participant does not have), and
// reconciles by hash any refusal that can follow a commit before it ends a record `rejected`.

import type { Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SubmissionRecord } from '../../../src/submissions/index.ts';
import {
  coinTemplate,
  noteCommand,
  prepareOn,
  startFullWallet,
  startLedger,
  walletConfig,
} from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startFullWallet>>;
let party: string;

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startFullWallet(sandbox, walletConfig(inject('redisUrl')));
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  const onboarded = await w.call('POST', '/wallet/v1/parties', {
    keyFingerprint: key.json.fingerprint,
    partyHint: 'formats',
  });
  party = onboarded.json.partyId as string;
});
afterAll(async () => {
  await w?.wallet.close();
  await sandbox?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A transactionFormat showing the party only the contracts of one template. */
function onlyTemplate(templateId: string) {
  return {
    eventFormat: {
      filtersByParty: {
        [party]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId } } } }] },
      },
    },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
  };
}

async function settled(id: string): Promise<SubmissionRecord> {
  const started = Date.now();
  for (;;) {
    const rec = (await w.call('GET', `/wallet/v1/submissions/${id}`)).json as unknown as SubmissionRecord;
    if (rec.status === 'committed' || rec.status === 'rejected' || rec.status === 'expired') return rec;
    if (Date.now() - started > 15_000) throw new Error(`still ${rec.status}`);
    await sleep(50);
  }
}

describe('a transactionFormat the participant reads with only after the commit', () => {
  it('the package-id form is refused at accept, nothing signed or sent', async () => {
    const prepared = await prepareOn(w.client, party, noteCommand(party));
    const packageId = sandbox.state.packages.idForName('quill-coin') ?? 'a'.repeat(64);
    const res = await w.call('POST', '/wallet/v1/submissions', {
      ...prepared,
      transactionFormat: onlyTemplate(`${packageId}:Quill.Coin:Holding`),
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(String((res.json.error as unknown as { message: string }).message)).toContain(
      'expected a package name',
    );
  });

  it('a package name the participant does not have is refused at accept (422 UNKNOWN_PACKAGE_NAME)', async () => {
    const prepared = await prepareOn(w.client, party, noteCommand(party));
    const res = await w.call('POST', '/wallet/v1/submissions', {
      ...prepared,
      transactionFormat: onlyTemplate('#no-such-package:Main:Thing'),
    });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'UNKNOWN_PACKAGE_NAME' });
    expect(String((res.json.error as unknown as { message: string }).message)).toContain('no-such-package');
  });

  it('more than 100 package names is a 400 before any ledger call', async () => {
    const prepared = await prepareOn(w.client, party, noteCommand(party));
    const cumulative = Array.from({ length: 101 }, (_, i) => ({
      identifierFilter: { TemplateFilter: { value: { templateId: `#pkg-${i}:Main:T` } } },
    }));
    const res = await w.call('POST', '/wallet/v1/submissions', {
      ...prepared,
      transactionFormat: {
        eventFormat: { filtersByParty: { [party]: { cumulative } } },
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
      },
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(String((res.json.error as unknown as { message: string }).message)).toContain('101 packages');
  });

  it('a refusal after the commit (unknown template of a known package) ends committed, found by its hash', async () => {
    const prepared = await prepareOn(w.client, party, noteCommand(party));
    const res = await w.call('POST', '/wallet/v1/submissions', {
      ...prepared,
      transactionFormat: onlyTemplate(coinTemplate('NoSuchTemplate')),
    });
    expect(res.status).toBe(202);
    const rec = await settled(res.json.id as string);
    // The participant committed it, then answered 404 NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME.
    expect(sandbox.state.commits.get(rec.commandId)).toBe(1);
    expect(rec.status).toBe('committed');
    expect(rec.attempts[0]).toMatchObject({
      outcome: 'duplicate',
      error: { code: 'NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME' },
    });
    expect(rec.updateId).toMatch(/^1220[0-9a-f]{64}$/);
    expect(rec.attempts).toHaveLength(1);
  });
});
