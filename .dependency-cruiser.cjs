// Which part of the tree may import which (DESIGN.md "Layout"). `npm run lint` fails on a forbidden import.
// Workspace packages resolve to their real paths (packages/<name>/src/…), so the rules speak of those.
// Leaves everyone may use: the base error (packages/canton/src/errors.ts), src/errors.ts, src/log.ts, src/json.ts.
const LEAVES = '^(packages/canton/src/errors[.]ts|src/(errors|log|json)[.]ts)$';
/** The Canton contract's folders, as one pattern: `canton('ledger', 'transaction')`. */
const canton = (...folders) => `packages/canton/src/(${folders.join('|')})/`;
/** Wallet folders under src/, as one pattern. */
const wallet = (...folders) => `src/(${folders.join('|')})/`;
const DOMAIN = '^src/(redis|auth|audit|signing|parties|submissions|history|events|policy|intents)/';

/** A rule: files under `from` may import nothing of ours except what `allowed` matches. */
function only(name, from, allowed, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from },
    to: { path: '^(src|packages)/', pathNot: [allowed, LEAVES] },
  };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Import cycles make load order matter and hide layering mistakes.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    only(
      'canton-is-generic',
      '^packages/canton/src/',
      '^packages/canton/src/',
      'The Canton contract and codec (a package of their own) know nothing of the wallet or the sandbox.',
    ),
    only('ledger-is-a-leaf', `^${canton('ledger')}`, `^${canton('ledger')}`, 'The ledger contract depends on nothing of ours.'),
    only(
      'transaction-uses-schemas',
      `^${canton('transaction')}`,
      `^(${canton('transaction')}|packages/canton/src/ledger/schemas/)`,
      'PreparedTransaction code needs nothing of ours but the ledger schemas.',
    ),
    only('token-is-a-leaf', `^${canton('token')}`, `^${canton('token')}`, 'The token standard\'s identifiers and shapes depend on nothing of ours.'),
    only('scan-uses-ledger', `^${canton('scan')}`, `^${canton('scan', 'ledger')}`, 'The activity feed reuses the ledger transport.'),
    only(
      'sandbox-uses-canton',
      '^packages/sandbox/src/',
      '^packages/(sandbox|canton)/src/',
      'The sandbox serves the ledger contract; it knows nothing of the wallet.',
    ),
    {
      name: 'product-not-sandbox',
      comment:
        'The sandbox is a test instrument, absent from the production image: only the commands (src/cli) and the development composition (src/dev) load it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|dev)/' },
      to: { path: '^packages/sandbox/' },
    },
    only(
      'redis-is-infrastructure',
      `^${wallet('redis')}`,
      `^${wallet('redis')}`,
      'Connections, keys, scripts, leases and the consumer loop serve every store; they know none of them.',
    ),
    only('auth-is-a-leaf', `^${wallet('auth')}`, `^${wallet('auth')}`, 'Principals and tokens depend on nothing of ours.'),
    only(
      'audit-uses-redis',
      `^${wallet('audit')}`,
      `^${wallet('audit', 'redis', 'signing')}`,
      'The audit chain lives in Redis; its checkpoints are signed by a key of the key ring.',
    ),
    only('signing-uses-ledger', `^${wallet('signing')}`, `^(${wallet('signing')}|${canton('ledger', 'topology')})`, 'Signers speak the ledger Signature shapes and fingerprint keys by the topology codec.'),
    only(
      'parties-use-leaves',
      `^${wallet('parties')}`,
      `^(${wallet('parties', 'signing')}|${canton('ledger', 'transaction', 'topology', 'admin')})`,
      'Onboarding and key changes use the ledger, the admin API, signing and the topology codec, nothing above them.',
    ),
    only(
      'policy-uses-transaction',
      `^${wallet('policy')}`,
      `^(${wallet('policy', 'audit', 'redis', 'auth')}|${canton('ledger', 'transaction', 'token')})`,
      'Approval policy reads decoded transactions through the token standard declarations (and keeps its versions in Redis; groups name people as src/auth does); it knows nothing of the pipeline.',
    ),
    only(
      'submissions-use-leaves',
      `^${wallet('submissions')}`,
      `^(${wallet('submissions', 'policy', 'signing', 'audit', 'auth', 'redis')}|${canton('ledger', 'transaction', 'token')})`,
      'The pipeline is wired by the composition root, never the other way round.',
    ),
    only(
      'history-reads-the-ledger',
      `^${wallet('history')}`,
      `^(${wallet('history', 'redis')}|${canton('ledger', 'token')})`,
      'What Quill learns from the ledger: the watcher and its index, nothing of the pipeline or the API.',
    ),
    only(
      'events-use-domain',
      `^${wallet('events')}`,
      `^(${wallet('events', 'submissions', 'redis')}|${canton('ledger', 'scan', 'transaction', 'token')})`,
      'What Quill tells others builds on the pipeline, never on the API or the wiring.',
    ),
    only(
      'intents-use-pipeline',
      `^${wallet('intents')}`,
      `^(${wallet('intents', 'submissions', 'policy', 'history', 'audit', 'auth', 'redis')}|${canton('ledger', 'token')})`,
      "Intents prepare through the ledger and the registries, then hand over to the pipeline's accept path.",
    ),
    only(
      'api-uses-domain',
      `^${wallet('api')}`,
      `^(${wallet('api', 'auth', 'audit', 'signing', 'parties', 'submissions', 'events', 'history', 'policy', 'intents', 'redis')}|src/metrics[.]ts|packages/canton/src/)`,
      'The HTTP layer uses domain folders; configuration and wiring come from src/server.',
    ),
    only(
      'console-uses-api',
      `^${wallet('console')}`,
      `^${wallet('console', 'api', 'auth', 'redis', 'submissions')}`,
      'The console is a client of the wallet API (in process): it reads and acts only through it (its sessions and links live under the key registry).',
    ),
    {
      name: 'config-only-in-composition',
      comment: 'Only the composition root and the commands read configuration.',
      severity: 'error',
      from: { path: DOMAIN },
      to: { path: '^src/(config|server|cli|dev)/' },
    },
    {
      name: 'server-not-from-below',
      comment: 'Nothing below the composition root imports it.',
      severity: 'error',
      from: { path: '^(src/(redis|auth|audit|signing|parties|submissions|history|events|policy|intents|api|console|config)/|packages/)' },
      to: { path: '^src/(server|cli|dev)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|packages/[^/]+/src)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'], exportsFields: ['exports'], conditionNames: ['import', 'default'] },
  },
};
