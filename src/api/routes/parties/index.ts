// /wallet/v1/parties and what hangs under a party: the registry, its history, holdings and
// transfer instructions, its activity feed.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps, AppEnv } from '../../context.ts';
import { activityRoutes } from './activities.ts';
import { historyRoutes } from './history.ts';
import { partyRegistryRoutes } from './registry.ts';
import { tokenRoutes } from './tokens.ts';

export function partyRoutes(deps: AppDeps) {
  return new OpenAPIHono<AppEnv>()
    .route('/', partyRegistryRoutes(deps))
    .route('/', historyRoutes(deps))
    .route('/', tokenRoutes(deps))
    .route('/', activityRoutes(deps));
}
