// Template and interface filters as the participant reads them (review rows A20, A31): only the package-name form
// (FormatValidator.validateNameTypeConRef: "Received an identifier with package ID …, but expected a package
// name."), then unknown names and templates 404 (IndexServiceImpl.checkUnknownIdentifiers) — and on
// executeAndWaitForTransaction both only after the commit (CommandServiceImpl.fetchTransactionFromCompletion).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  COIN,
  executeBody,
  expectLedgerError,
  onboard,
  type Party,
  prepareOn,
  run,
  type Sandbox,
  sandboxWithAdmin,
  tapCommand,
} from './helpers.ts';

const EXEC = '/v2/interactive-submission/executeAndWaitForTransaction';
const FLATS = '/v2/updates/flats';
const BY_OFFSET = '/v2/updates/transaction-by-offset';
const EVENTS = '/v2/events/events-by-contract-id';

let sb: Sandbox;
let admin: string;
let alice: Party;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  alice = await onboard(sb, admin, 'ed25519', 'alice');
  await run(sb, alice, [tapCommand(sb, alice.partyId, '5.0000000000')]); // the coin package is now uploaded
});
afterAll(async () => {
  await sb?.close();
});

const coinPackageId = () => sb.state.packages.idForName('quill-coin') as string;

/** An event format showing alice the contracts of one template (or interface). */
function only(id: string, kind: 'TemplateFilter' | 'InterfaceFilter' = 'TemplateFilter') {
  const value = kind === 'TemplateFilter' ? { templateId: id } : { interfaceId: id };
  return {
    filtersByParty: { [alice.partyId]: { cumulative: [{ identifierFilter: { [kind]: { value } } }] } },
  };
}

const flats = (eventFormat: unknown) => ({
  beginExclusive: 0,
  updateFormat: { includeTransactions: { eventFormat, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } },
});

function refused(path: string, body: unknown, status: number, code: string) {
  return expectLedgerError(
    sb.url,
    { specPath: path, method: 'POST', path, body, token: alice.token },
    status,
    code,
  );
}

describe('reads', () => {
  test('the package-id form is 400 INVALID_FIELD, as the ledger itself writes template ids', async () => {
    const e = await refused(
      FLATS,
      flats(only(`${coinPackageId()}:Quill.Coin:Holding`)),
      400,
      'INVALID_FIELD',
    );
    expect(e.cause).toContain(
      `Received an identifier with package ID ${coinPackageId()}, but expected a package name.`,
    );
    expect(e.errorCategory).toBe(8);
  });

  test('an unknown package name is 404 PACKAGE_NAMES_NOT_FOUND; an unknown template of a known one 404', async () => {
    const a = await refused(FLATS, flats(only('#no-such:Main:T')), 404, 'PACKAGE_NAMES_NOT_FOUND');
    expect(a.cause).toBe(
      'The following package names do not match upgradable packages uploaded on this participant: [no-such].',
    );
    expect(a.errorCategory).toBe(11);
    const b = await refused(
      FLATS,
      flats(only(COIN('Nope'))),
      404,
      'NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME',
    );
    expect(b.cause).toContain('[(quill-coin,Quill.Coin:Nope)]');
    await refused(
      FLATS,
      flats(only(COIN('Holding'), 'InterfaceFilter')),
      404,
      'NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME',
    );
  });

  test('point lookups and contract events check the same', async () => {
    const offset = sb.state.log.end;
    await refused(
      BY_OFFSET,
      {
        offset,
        transactionFormat: {
          eventFormat: only('#no-such:Main:T'),
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      },
      404,
      'PACKAGE_NAMES_NOT_FOUND',
    );
    await refused(
      EVENTS,
      { contractId: '00ab', eventFormat: only('#no-such:Main:T') },
      404,
      'PACKAGE_NAMES_NOT_FOUND',
    );
  });

  test("the token standard's interfaces are known, as on a network participant: they match nothing here", async () => {
    const res = await fetch(`${sb.url}${FLATS}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}` },
      body: JSON.stringify(
        flats(only('#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding', 'InterfaceFilter')),
      ),
    });
    expect(res.status).toBe(200);
  });

  test('a known template in the package-name form reads', async () => {
    const res = await fetch(`${sb.url}${FLATS}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}` },
      body: JSON.stringify(flats(only(COIN('Holding')))),
    });
    expect(res.status).toBe(200);
  });
});

describe('executeAndWaitForTransaction checks the format only after the commit', () => {
  for (const [what, format, status, code] of [
    ['the package-id form', () => only(`${coinPackageId()}:Quill.Coin:Holding`), 400, 'INVALID_FIELD'],
    ['an unknown package name', () => only('#no-such:Main:T'), 404, 'PACKAGE_NAMES_NOT_FOUND'],
    [
      'an unknown template',
      () => only(COIN('Nope')),
      404,
      'NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME',
    ],
  ] as const) {
    test(`${what}: ${status} ${code} for a transaction that committed`, async () => {
      const commandId = `fmt-${code}-${status}`;
      const p = await prepareOn(sb, alice, [tapCommand(sb, alice.partyId, '1.0000000000')], { commandId });
      const endBefore = sb.state.log.end;
      const body = executeBody(alice, p, {
        transactionFormat: { eventFormat: format(), transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
      });
      await refused(EXEC, body, status, code);
      expect(sb.state.log.end).toBeGreaterThan(endBefore);
      expect(sb.state.commits.get(commandId)).toBe(1);
    });
  }
});
