// The party's other hosts (multi-hosted onboarding) and the participant's admin API (key changes).
import { z } from 'zod';
import { defined, intIn, list, optionalText, readSecretFile } from './env.ts';
import { section } from './section.ts';

const HOST_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const topology = section({
  summary:
    "Other participants that may host a party (multi-hosted onboarding) and the participant's admin API " +
    '(changing a party’s keys).',
  vars: {
    LEDGER_HOSTS: list.describe(
      'other hosting participants by name, as `name=url` pairs separated by commas (each its JSON Ledger API, ' +
        "reached with the wallet's own ledger token); onboarding names them in `hosts`",
    ),
    LEDGER_ADMIN_URL: optionalText.describe(
      "the participant's admin API (gRPC, `host:port`): unset = a party's keys cannot be changed, only " +
        'replaced by a new party',
    ),
    LEDGER_ADMIN_TOKEN_FILE: optionalText.describe(
      'a file holding the bearer token for the admin API, re-read at start (unset = no token)',
    ),
    LEDGER_ADMIN_TLS_CA_FILE: optionalText.describe(
      "PEM of the CA the admin API's TLS certificate is checked against (unset = plaintext gRPC)",
    ),
    PARTY_ALLOCATION_TIMEOUT_MS: intIn(1000, 600_000, 30_000).describe(
      'how long onboarding and a key change wait for the party to exist on every host (or the change to be ' +
        'effective)',
    ),
  },
  outputs: { ledgerHosts: true, ledgerAdmin: true, partyAllocationTimeoutMs: true },
  build: (e, problem) => {
    const ledgerHosts: { name: string; url: string }[] = [];
    for (const pair of e.LEDGER_HOSTS) {
      const at = pair.indexOf('=');
      const name = at > 0 ? pair.slice(0, at).trim() : '';
      const url =
        at > 0
          ? pair
              .slice(at + 1)
              .trim()
              .replace(/\/+$/, '')
          : '';
      if (!HOST_NAME.test(name) || !z.url({ protocol: /^https?$/ }).safeParse(url).success) {
        problem(
          `LEDGER_HOSTS: "${pair.slice(0, 80)}" is not name=http(s)://… (a lowercase name, then a URL)`,
        );
        continue;
      }
      if (ledgerHosts.some((h) => h.name === name)) problem(`LEDGER_HOSTS: ${name} is named twice`);
      ledgerHosts.push({ name, url });
    }
    if (!e.LEDGER_ADMIN_URL && (e.LEDGER_ADMIN_TOKEN_FILE || e.LEDGER_ADMIN_TLS_CA_FILE)) {
      problem('LEDGER_ADMIN_TOKEN_FILE and LEDGER_ADMIN_TLS_CA_FILE need LEDGER_ADMIN_URL');
    }
    if (e.LEDGER_ADMIN_URL && !/^(grpcs?:\/\/)?[A-Za-z0-9.[\]:-]+:\d{1,5}$/.test(e.LEDGER_ADMIN_URL)) {
      problem('LEDGER_ADMIN_URL: must be host:port (or grpc://host:port, grpcs://host:port)');
    }
    const token = e.LEDGER_ADMIN_TOKEN_FILE
      ? readSecretFile(e.LEDGER_ADMIN_TOKEN_FILE, 'LEDGER_ADMIN_TOKEN_FILE', problem)
      : undefined;
    const tlsCaPem = e.LEDGER_ADMIN_TLS_CA_FILE
      ? readSecretFile(e.LEDGER_ADMIN_TLS_CA_FILE, 'LEDGER_ADMIN_TLS_CA_FILE', problem)
      : undefined;
    return {
      ledgerHosts,
      ...defined({
        ledgerAdmin: e.LEDGER_ADMIN_URL
          ? { url: e.LEDGER_ADMIN_URL, ...defined({ token, tlsCaPem }) }
          : undefined,
      }),
      partyAllocationTimeoutMs: e.PARTY_ALLOCATION_TIMEOUT_MS,
    };
  },
});
