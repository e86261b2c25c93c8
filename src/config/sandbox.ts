// The embedded sandbox ledger and scan of `quill serve --sandbox|--demo`, on 127.0.0.1.
import { z } from 'zod';
import { defined, list, port, secret } from './env.ts';
import { section } from './section.ts';

export const sandbox = section({
  summary: 'The embedded sandbox ledger and activity feed of `quill serve --sandbox|--demo` (on 127.0.0.1).',
  vars: {
    SANDBOX_PORT: port(7575).describe('port of the embedded sandbox ledger (127.0.0.1)'),
    SANDBOX_SCAN_PORT: port(7576).describe('port of the embedded sandbox activity feed (127.0.0.1)'),
    SANDBOX_ADMIN_PORT: port(0, 0).describe(
      "port of the embedded sandbox's admin API (gRPC topology services, for key changes); 0 = any free port",
    ),
    SANDBOX_HOSTS: list.describe(
      'names of extra participants the embedded sandbox serves (each its own port), offered as hosts for ' +
        'multi-hosted parties; unset = none',
    ),
    SANDBOX_AUTH_SECRET: secret(
      z.string().min(32, { error: 'must be at least 32 characters' }).optional(),
      "the embedded sandbox's ledger token secret (≥ 32 characters); unset = ledger auth off",
    ),
  },
  outputs: { sandbox: true },
  build: (e, problem) => {
    if (e.SANDBOX_PORT === e.SANDBOX_SCAN_PORT) problem('SANDBOX_PORT and SANDBOX_SCAN_PORT must differ');
    return {
      sandbox: {
        port: e.SANDBOX_PORT,
        scanPort: e.SANDBOX_SCAN_PORT,
        adminPort: e.SANDBOX_ADMIN_PORT,
        hosts: e.SANDBOX_HOSTS,
        ...defined({ authSecret: e.SANDBOX_AUTH_SECRET }),
      },
    };
  },
});
