/** `POST /v2/package-vetting/list`. */
import { endpoints as E } from '@quill/canton/ledger';
import { type App, type Services, serve } from './http.ts';

export function packageRoutes(app: App, { state }: Services): void {
  serve(app, E.listVettedPackages, (c, { body }) => {
    const filter = {
      packageIds: body.packageMetadataFilter?.packageIds,
      packageNamePrefixes: body.packageMetadataFilter?.packageNamePrefixes,
      participantIds: body.topologyStateFilter?.participantIds,
      synchronizerIds: body.topologyStateFilter?.synchronizerIds,
    };
    return c.json(state.packages.list(filter, body.pageToken ?? '', body.pageSize ?? 0));
  });
}
