// Which folder of src/ may import which (DESIGN.md "Layout"). `npm run lint` fails on a forbidden import.
// Leaves every folder may use: src/errors.ts (the base error) and src/log.ts (the Log type).
const DOMAIN = '^src/(ledger|scan|transaction|signing|parties|submissions|events|policy)/';
const LEAVES = '^src/(errors|log)[.]ts$';

/** A rule: files under `from` may import nothing of src/ except what `allowed` matches. */
function only(name, from, allowed, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from },
    to: { path: '^src/', pathNot: [allowed, LEAVES] },
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
    only('ledger-is-a-leaf', '^src/(ledger)/', '^src/ledger/', 'The ledger contract depends on nothing of ours.'),
    only(
      'transaction-uses-schemas',
      '^src/(transaction)/',
      '^src/(transaction/|ledger/schemas/)',
      'PreparedTransaction code needs nothing of ours but the ledger schemas.',
    ),
    only('scan-uses-ledger', '^src/(scan)/', '^src/(scan|ledger)/', 'The activity feed reuses the ledger transport.'),
    only('signing-uses-ledger', '^src/(signing)/', '^src/(signing|ledger)/', 'Signers speak the ledger Signature shapes.'),
    only(
      'parties-use-leaves',
      '^src/(parties)/',
      '^src/(parties|ledger|signing|transaction)/',
      'Onboarding uses the ledger, signing and topology hashing, nothing above them.',
    ),
    only(
      'submissions-use-leaves',
      '^src/(submissions)/',
      '^src/(submissions|policy|ledger|transaction|signing)/',
      'The pipeline is wired by the composition root, never the other way round.',
    ),
    only(
      'events-use-domain',
      '^src/(events)/',
      '^src/(events|ledger|scan|transaction|submissions|parties|lease[.]ts)',
      'Events, streams and webhooks (issue 14) build on the domain folders, never on the API or the wiring.',
    ),
    only(
      'policy-uses-transaction',
      '^src/(policy)/',
      '^src/(policy|ledger|transaction)/',
      'Approval policy reads decoded transactions; it knows nothing of the pipeline or the sandbox.',
    ),
    only(
      'api-uses-domain',
      '^src/(api)/',
      `^src/(api|ledger|scan|transaction|signing|parties|submissions|events|policy)/`,
      'The HTTP layer uses domain folders; configuration and wiring come from src/server.',
    ),
    only(
      'console-uses-api',
      '^src/(console)/',
      '^src/(console|api|submissions)/',
      'The console is a client of the wallet API (in process): it reads and acts only through it.',
    ),
    only(
      'sandbox-uses-contract',
      '^src/(sandbox)/',
      '^src/(sandbox|ledger|scan|transaction)/',
      'The sandbox serves the ledger contract; it knows nothing of the wallet.',
    ),
    {
      name: 'config-only-in-composition',
      comment: 'Only the composition root and the commands read configuration.',
      severity: 'error',
      from: { path: DOMAIN },
      to: { path: '^src/(config[.]ts|server/|cli/)' },
    },
    {
      name: 'server-not-from-below',
      comment: 'Nothing below the composition root imports it.',
      severity: 'error',
      from: { path: '^src/(ledger|scan|transaction|signing|parties|submissions|events|policy|api|console|sandbox)/' },
      to: { path: '^src/(server|cli)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
