/** Version, ledger end, pruning offsets, connected synchronizers, health. */
import type { App, Services } from './http.ts';

export function stateRoutes(app: App, { state }: Services): void {
  app.get('/v2/version', (c) =>
    c.json({
      version: '3.5.10',
      features: {
        experimental: { staticTime: { supported: false }, commandInspectionService: { supported: false } },
        userManagement: { supported: true, maxRightsPerUser: 1000, maxUsersPageSize: 1000 },
        partyManagement: { maxPartiesPageSize: 10000 },
        offsetCheckpoint: { maxOffsetCheckpointEmissionDelay: { seconds: 1, nanos: 0 } },
        packageFeature: { maxVettedPackagesPageSize: state.packages.maxPageSize },
      },
    }),
  );
  app.get('/v2/state/ledger-end', (c) => c.json({ offset: state.log.end }));
  app.get('/v2/state/latest-pruned-offsets', (c) =>
    c.json({
      participantPrunedUpToInclusive: state.log.prunedUpTo,
      allDivulgedContractsPrunedUpToInclusive: state.log.prunedUpTo,
    }),
  );
  app.get('/v2/state/connected-synchronizers', (c) =>
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
