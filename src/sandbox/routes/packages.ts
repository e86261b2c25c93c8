/** `POST /v2/package-vetting/list`. */
import { ListVettedPackagesRequest } from '../../ledger/index.ts';
import { type App, readJson, type Services } from './http.ts';

export function packageRoutes(app: App, { state }: Services): void {
  app.post('/v2/package-vetting/list', async (c) => {
    const body = await readJson(c, ListVettedPackagesRequest);
    const filter = {
      packageIds: body.packageMetadataFilter?.packageIds,
      packageNamePrefixes: body.packageMetadataFilter?.packageNamePrefixes,
      participantIds: body.topologyStateFilter?.participantIds,
      synchronizerIds: body.topologyStateFilter?.synchronizerIds,
    };
    return c.json(state.packages.list(filter, body.pageToken ?? '', body.pageSize ?? 0));
  });
}
