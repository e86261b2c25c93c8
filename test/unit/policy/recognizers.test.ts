// Holding recognizers are data (issue 27): read through dot paths and literals, loaded from RECOGNIZERS_FILE with
// each problem named by its path (a bad file stops `quill serve` with exit 2).

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_RECOGNIZERS } from '@quill/sandbox';
import { describe, expect, it } from 'vitest';
import { exitFor } from '../../../src/cli/index.ts';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';
import { AMULET_RECOGNIZERS, parseRecognizers, readHolding } from '../../../src/policy/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'quill-recognizers-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const STABLE = `
holdings:
  - template: "#stable-registry:Stable.Token:StableHolding"
    owner: owner
    amount: amount
    admin: registrar
    instrument: instrument
    lock: lock
`;

describe('holding recognizers', () => {
  it('value Amulet and LockedAmulet create arguments (reference §5.2)', () => {
    const amulet = {
      dso: 'dso::1',
      owner: 'alice::1',
      amount: {
        initialAmount: '100.0000000000',
        createdAt: { number: '0' },
        ratePerRound: { rate: '0.0038' },
      },
    };
    const [plain, locked] = AMULET_RECOGNIZERS;
    if (!plain || !locked) throw new Error('two Amulet recognizers');
    expect(readHolding(plain, amulet)).toEqual({
      owner: 'alice::1',
      amount: '100.0000000000',
      admin: 'dso::1',
      instrument: 'Amulet',
      locked: false,
    });
    expect(readHolding(locked, { amulet, lock: { holders: ['dso::1'] } })).toMatchObject({ locked: true });
    expect(readHolding(plain, { ...amulet, amount: { initialAmount: '-1.0' } })).toMatch(
      /non-negative decimal/,
    );
    expect(readHolding(plain, { ...amulet, owner: undefined })).toBe('no owner at owner');
    expect(readHolding(plain, [])).toBe('no owner at owner');
  });

  it('lock: a present, non-null value locks', () => {
    const r = parseRecognizers(STABLE);
    if (!('holdings' in r)) throw new Error('valid');
    const [h] = r.holdings;
    if (!h) throw new Error('one');
    const arg = { registrar: 'i::1', instrument: 'USDx', owner: 'a::1', amount: '5.0' };
    expect(readHolding(h, { ...arg, lock: null })).toMatchObject({ locked: false, instrument: 'USDx' });
    expect(readHolding(h, arg)).toMatchObject({ locked: false });
    expect(readHolding(h, { ...arg, lock: { holders: [] } })).toMatchObject({ locked: true });
  });

  it('the demo coin is recognizers like any registry: its instruction is a locked holding of the sender', () => {
    const coin = (entity: string) =>
      SANDBOX_RECOGNIZERS.holdings.find((h) => h.template.endsWith(`:${entity}`));
    const [holding, instruction] = [coin('Quill.Coin:Holding'), coin('TransferInstruction')];
    if (!holding || !instruction) throw new Error('two');
    const operator = 'op::1';
    expect(readHolding(holding, { operator, owner: 'a::1', amount: '5.0' })).toEqual({
      owner: 'a::1',
      amount: '5.0',
      admin: operator,
      instrument: 'QuillCoin',
      locked: false,
    });
    expect(
      readHolding(instruction, {
        operator,
        sender: 'a::1',
        receiver: 'b::1',
        amount: '2.0',
        description: '',
      }),
    ).toMatchObject({ owner: 'a::1', amount: '2.0', locked: true });
  });

  it('a file names each problem by its path', () => {
    const r = parseRecognizers(`
holdings:
  - template: "Stable.Token:StableHolding"
    owner: "owner[0]"
    amount: amount
    admin: "="
    instrument: instrument
    lock: "=false"
    colour: red
`);
    expect('problems' in r && r.problems.map((p) => p.path).sort()).toEqual(
      [
        'holdings[0]',
        'holdings[0].admin',
        'holdings[0].lock',
        'holdings[0].owner',
        'holdings[0].template',
      ].sort(),
    );
    expect(parseRecognizers('{ unclosed')).toMatchObject({ problems: [{ path: '' }] });
    expect(parseRecognizers('holdings: []')).toEqual({ holdings: [] });
  });

  it('RECOGNIZERS_FILE loads at start; a bad or missing file is a ConfigError, exit 2', () => {
    const cfg = loadConfig({ RECOGNIZERS_FILE: file('ok.yaml', STABLE) }, ['policy']);
    expect(cfg.recognizers.map((r) => r.template)).toEqual(['#stable-registry:Stable.Token:StableHolding']);
    expect(loadConfig({}, ['policy']).recognizers).toEqual([]);
    let err: unknown;
    try {
      loadConfig({ RECOGNIZERS_FILE: file('bad.yaml', 'holdings: [{template: x}]') }, ['policy']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.join('\n')).toContain('RECOGNIZERS_FILE: holdings[0].template:');
    expect(exitFor(err).code).toBe(2);
    expect(() => loadConfig({ RECOGNIZERS_FILE: join(dir, 'missing.yaml') }, ['policy'])).toThrow(
      /cannot read/,
    );
  });
});
