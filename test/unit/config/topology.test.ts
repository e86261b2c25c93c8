// LEDGER_HOSTS, LEDGER_ADMIN_*: garbage is a problem line naming the variable, never a crash or a silent default.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';
import { tempDir } from '../../support/tmp.ts';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env, ['topology']);
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  return [];
}

describe('the topology section', () => {
  it('reads named hosts and the admin API with its token and CA', () => {
    const dir = tempDir('quill-topology-config-');
    writeFileSync(join(dir, 'token'), 'admin-token\n');
    writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\n');
    const c = loadConfig(
      {
        LEDGER_HOSTS: 'p2=http://10.0.0.2:7575/, p3=https://p3.example:443',
        LEDGER_ADMIN_URL: 'grpcs://admin.example:5012',
        LEDGER_ADMIN_TOKEN_FILE: join(dir, 'token'),
        LEDGER_ADMIN_TLS_CA_FILE: join(dir, 'ca.pem'),
      },
      ['topology'],
    );
    expect(c.ledgerHosts).toEqual([
      { name: 'p2', url: 'http://10.0.0.2:7575' },
      { name: 'p3', url: 'https://p3.example:443' },
    ]);
    expect(c.ledgerAdmin).toEqual({
      url: 'grpcs://admin.example:5012',
      token: 'admin-token',
      tlsCaPem: '-----BEGIN CERTIFICATE-----',
    });
    expect(c.partyAllocationTimeoutMs).toBe(30_000);
  });

  it('names each bad value', () => {
    expect(problems({ LEDGER_HOSTS: 'p2' })[0]).toMatch(/LEDGER_HOSTS: "p2" is not name=/);
    expect(problems({ LEDGER_HOSTS: 'P2=http://x:1' })[0]).toMatch(/LEDGER_HOSTS/);
    expect(problems({ LEDGER_HOSTS: 'p2=ftp://x' })[0]).toMatch(/LEDGER_HOSTS/);
    expect(problems({ LEDGER_HOSTS: 'p2=http://a:1,p2=http://b:1' })[0]).toMatch(/named twice/);
    expect(problems({ LEDGER_ADMIN_URL: 'http://x' })[0]).toMatch(/LEDGER_ADMIN_URL: must be host:port/);
    expect(problems({ LEDGER_ADMIN_TOKEN_FILE: '/nope' })[0]).toMatch(/need LEDGER_ADMIN_URL/);
    expect(problems({ LEDGER_ADMIN_URL: 'a:1', LEDGER_ADMIN_TOKEN_FILE: '/nope/token' })[0]).toMatch(
      /LEDGER_ADMIN_TOKEN_FILE: cannot read/,
    );
  });

  test.prop([fc.string({ maxLength: 200 }), fc.string({ maxLength: 80 })])(
    'any LEDGER_HOSTS or LEDGER_ADMIN_URL loads or says why, naming the variable',
    (hosts, admin) => {
      const env = { LEDGER_HOSTS: hosts, ...(admin.trim() ? { LEDGER_ADMIN_URL: admin } : {}) };
      for (const p of problems(env)) expect(p).toMatch(/^(LEDGER_HOSTS|LEDGER_ADMIN_URL)/);
    },
  );
});
