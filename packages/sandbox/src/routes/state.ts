/** Version, ledger end, pruning offsets, connected synchronizers, health. */
import { endpoints as E } from '@quill/canton/ledger';
import { type App, type Services, serve } from './http.ts';

export function stateRoutes(app: App, { state, options }: Services): void {
  // LedgerApiServer.getLedgerFeatures: the cache interval plus the idle-stream timeout (75 s by default).
  const delayMs = options.checkpointIntervalMs + options.idleCheckpointTimeoutMs;
  serve(app, E.version, (c) =>
    c.json({
      version: '3.5.10',
      features: {
        experimental: { staticTime: { supported: false }, commandInspectionService: { supported: false } },
        userManagement: { supported: true, maxRightsPerUser: 1000, maxUsersPageSize: 1000 },
        partyManagement: { maxPartiesPageSize: 10000 },
        offsetCheckpoint: {
          maxOffsetCheckpointEmissionDelay: {
            seconds: Math.floor(delayMs / 1000),
            nanos: (delayMs % 1000) * 1_000_000,
          },
        },
        packageFeature: { maxVettedPackagesPageSize: state.packages.maxPageSize },
      },
    }),
  );
  serve(app, E.ledgerEnd, (c) => c.json({ offset: state.log.end }));
  serve(app, E.latestPrunedOffsets, (c) =>
    c.json({
      participantPrunedUpToInclusive: state.log.prunedUpTo,
      allDivulgedContractsPrunedUpToInclusive: state.log.prunedUpTo,
    }),
  );
  serve(app, E.connectedSynchronizers, (c) =>
    c.json({
      connectedSynchronizers: state.synchronizers.map((s) => ({
        synchronizerAlias: s.alias,
        synchronizerId: s.id,
        permission: 'PARTICIPANT_PERMISSION_SUBMISSION',
      })),
    }),
  );
  app.get('/livez', (c) => c.text('OK'));
  app.get('/readyz', (c) => c.text('OK'));
}
